import CZeroMQ

/// Connection events of a socket (`zmq_socket_monitor`), as libzmq names them.
public struct SocketEvents: OptionSet, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    /// A peer's handshake failed before any security mechanism was agreed (not ZMTP, or garbage).
    public static let handshakeFailedNoDetail = SocketEvents(rawValue: ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL)
    /// A peer broke the protocol, e.g. a plain (NULL) client on a CURVE server: mechanism mismatch.
    public static let handshakeFailedProtocol = SocketEvents(rawValue: ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL)
    /// Authentication refused the peer (the ZAP handler said no).
    public static let handshakeFailedAuth = SocketEvents(rawValue: ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
    public static let handshakeSucceeded = SocketEvents(rawValue: ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
    /// A connection to the peer was made (before any handshake).
    public static let connected = SocketEvents(rawValue: ZMQ_EVENT_CONNECTED)
    /// An established connection was lost (the peer went away).
    public static let disconnected = SocketEvents(rawValue: ZMQ_EVENT_DISCONNECTED)
    /// A connect failed (refused, or no such ipc socket) and is retried later.
    public static let connectRetried = SocketEvents(rawValue: ZMQ_EVENT_CONNECT_RETRIED)
}

/// One event read from a monitor socket: what happened, its value (an errno or protocol error code) and the
/// endpoint it happened on.
public struct SocketEvent: Sendable, Equatable {
    public var event: SocketEvents
    public var value: UInt32
    public var endpoint: String

    /// Reads the two frames libzmq writes per event (16-bit event and 32-bit value, then the endpoint); nil for
    /// anything else.
    public init?(frames: [[UInt8]]) {
        guard frames.count == 2, frames[0].count == 6 else { return nil }
        let f = frames[0]
        event = SocketEvents(rawValue: Int32(UInt16(f[0]) | UInt16(f[1]) << 8))
        value = UInt32(f[2]) | UInt32(f[3]) << 8 | UInt32(f[4]) << 16 | UInt32(f[5]) << 24
        endpoint = String(decoding: frames[1], as: UTF8.self)
    }
}

extension Socket {
    /// Publishes this socket's `events` on the inproc `endpoint`, where a `.pair` socket connected to it reads
    /// them (one ``SocketEvent`` per message). Lets a server see connections refused before any message.
    public func monitor(_ endpoint: String, events: SocketEvents) throws(ZMQError) {
        guard let h = rawHandle else { throw ZMQError(code: ENOTSOCK, operation: "zmq_socket_monitor") }
        try check("zmq_socket_monitor") { zmq_socket_monitor(h, endpoint, events.rawValue) }
    }
}
