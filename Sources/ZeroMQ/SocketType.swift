import CZeroMQ

/// The ZeroMQ socket patterns this project uses.
public enum SocketType: Sendable {
    case router, dealer, req, rep, pub, sub, push, pull, pair

    var raw: Int32 {
        switch self {
        case .router: ZMQ_ROUTER
        case .dealer: ZMQ_DEALER
        case .req: ZMQ_REQ
        case .rep: ZMQ_REP
        case .pub: ZMQ_PUB
        case .sub: ZMQ_SUB
        case .push: ZMQ_PUSH
        case .pull: ZMQ_PULL
        case .pair: ZMQ_PAIR
        }
    }
}

/// Typed socket options. Each case knows its libzmq option name and value type.
public enum SocketOption: Sendable {
    /// Milliseconds to keep unsent messages after close (0 = drop at once; -1 = forever).
    case linger(Int32)
    /// Report unroutable ROUTER sends as `EHOSTUNREACH` instead of dropping them silently.
    case routerMandatory(Bool)
    /// Largest inbound message in bytes; larger ones disconnect the peer (-1 = no limit).
    case maxMessageSize(Int64)
    /// The identity a DEALER presents to a ROUTER.
    case routingID([UInt8])
    /// Receive timeout in milliseconds (-1 = block).
    case receiveTimeout(Int32)
    /// Send timeout in milliseconds (-1 = block).
    case sendTimeout(Int32)
    /// High-water marks (messages queued per peer).
    case sendHighWaterMark(Int32)
    case receiveHighWaterMark(Int32)
    /// Subscribe a SUB socket to a prefix (empty = everything).
    case subscribe([UInt8])
    /// Only queue messages to completed connections.
    case immediate(Bool)
    /// Initial reconnect interval and its cap, milliseconds.
    case reconnectInterval(Int32)
    case reconnectIntervalMax(Int32)
    /// Heartbeats at the ZMTP level (ms), useful across hosts.
    case heartbeatInterval(Int32)
    case heartbeatTimeout(Int32)
    /// CURVE: this socket is the server side of the handshake (binds; needs `curveSecretKey`).
    case curveServer(Bool)
    /// CURVE keys, 32 bytes each (binary, not Z85). A client sets its own pair and the server's public key.
    case curvePublicKey([UInt8])
    case curveSecretKey([UInt8])
    case curveServerKey([UInt8])
    /// The ZAP domain presented to the authentication handler.
    case zapDomain(String)
}
