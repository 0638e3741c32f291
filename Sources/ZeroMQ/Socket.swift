import CZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// One ZeroMQ socket. Not thread-safe: a single owner (normally a poll-loop thread) uses it, so it is not
/// `Sendable`: create it on the thread that polls it and keep it there.
/// Close it explicitly with ``close(linger:)``; `deinit` closes it with linger 0 as a last resort.
public final class Socket {
    private(set) var handle: UnsafeMutableRawPointer?
    public let type: SocketType
    private let context: Context

    init(context: Context, type: SocketType) throws(ZMQError) {
        guard let raw = zmq_socket(context.handle, type.raw) else { throw ZMQError.last("zmq_socket") }
        self.context = context
        self.type = type
        self.handle = raw
        // Never block process exit on unsent messages unless the owner asks for it.
        try set(.linger(0))
    }

    deinit { if handle != nil { close(linger: 0) } }

    private func live(_ op: String) throws(ZMQError) -> UnsafeMutableRawPointer {
        guard let handle else { throw ZMQError(code: ENOTSOCK, operation: op) }
        return handle
    }

    /// Sets a typed option.
    public func set(_ option: SocketOption) throws(ZMQError) {
        let h = try live("zmq_setsockopt")
        func int(_ name: Int32, _ value: Int32) throws(ZMQError) {
            var v = value
            try check("zmq_setsockopt(\(name))") { zmq_setsockopt(h, name, &v, MemoryLayout<Int32>.size) }
        }
        func bytes(_ name: Int32, _ value: [UInt8]) throws(ZMQError) {
            try check("zmq_setsockopt(\(name))") {
                value.withUnsafeBytes { zmq_setsockopt(h, name, $0.baseAddress, $0.count) }
            }
        }
        switch option {
        case .linger(let v): try int(ZMQ_LINGER, v)
        case .routerMandatory(let v): try int(ZMQ_ROUTER_MANDATORY, v ? 1 : 0)
        case .maxMessageSize(let v):
            var value = v
            try check("zmq_setsockopt(ZMQ_MAXMSGSIZE)") {
                zmq_setsockopt(h, ZMQ_MAXMSGSIZE, &value, MemoryLayout<Int64>.size)
            }
        case .routingID(let v): try bytes(ZMQ_ROUTING_ID, v)
        case .receiveTimeout(let v): try int(ZMQ_RCVTIMEO, v)
        case .sendTimeout(let v): try int(ZMQ_SNDTIMEO, v)
        case .sendHighWaterMark(let v): try int(ZMQ_SNDHWM, v)
        case .receiveHighWaterMark(let v): try int(ZMQ_RCVHWM, v)
        case .subscribe(let v): try bytes(ZMQ_SUBSCRIBE, v)
        case .immediate(let v): try int(ZMQ_IMMEDIATE, v ? 1 : 0)
        case .reconnectInterval(let v): try int(ZMQ_RECONNECT_IVL, v)
        case .reconnectIntervalMax(let v): try int(ZMQ_RECONNECT_IVL_MAX, v)
        case .heartbeatInterval(let v): try int(ZMQ_HEARTBEAT_IVL, v)
        case .heartbeatTimeout(let v): try int(ZMQ_HEARTBEAT_TIMEOUT, v)
        case .curveServer(let v): try int(ZMQ_CURVE_SERVER, v ? 1 : 0)
        case .curvePublicKey(let v): try bytes(ZMQ_CURVE_PUBLICKEY, v)
        case .curveSecretKey(let v): try bytes(ZMQ_CURVE_SECRETKEY, v)
        case .curveServerKey(let v): try bytes(ZMQ_CURVE_SERVERKEY, v)
        case .zapDomain(let v): try bytes(ZMQ_ZAP_DOMAIN, Array(v.utf8))
        }
    }

    /// Binds to an endpoint such as `tcp://127.0.0.1:5555`, `ipc:///path` or `inproc://name`.
    public func bind(_ endpoint: String) throws(ZMQError) {
        let h = try live("zmq_bind")
        try check("zmq_bind(\(endpoint))") { zmq_bind(h, endpoint) }
    }

    /// Connects to an endpoint; ZeroMQ reconnects by itself if the peer goes away.
    public func connect(_ endpoint: String) throws(ZMQError) {
        let h = try live("zmq_connect")
        try check("zmq_connect(\(endpoint))") { zmq_connect(h, endpoint) }
    }

    /// The endpoint actually bound (useful after binding `tcp://127.0.0.1:*`).
    public func lastEndpoint() throws(ZMQError) -> String {
        let h = try live("zmq_getsockopt")
        var buffer = [CChar](repeating: 0, count: 1024)
        var size = buffer.count
        try check("zmq_getsockopt(ZMQ_LAST_ENDPOINT)") { zmq_getsockopt(h, ZMQ_LAST_ENDPOINT, &buffer, &size) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Sends all frames as one multipart message. With `dontWait`, throws `EAGAIN` instead of blocking.
    public func send(_ frames: [[UInt8]], dontWait: Bool = false) throws(ZMQError) {
        let h = try live("zmq_send")
        precondition(!frames.isEmpty, "a message has at least one frame")
        for (index, frame) in frames.enumerated() {
            var flags: Int32 = dontWait ? ZMQ_DONTWAIT : 0
            if index < frames.count - 1 { flags |= ZMQ_SNDMORE }
            try check("zmq_send") {
                frame.withUnsafeBytes { Int32(truncatingIfNeeded: zmq_send(h, $0.baseAddress, $0.count, flags)) }
            }
        }
    }

    /// Receives one whole multipart message through `zmq_msg_t` (no fixed-size buffers).
    /// With `dontWait`, returns nil when nothing is queued.
    public func receive(dontWait: Bool = false) throws(ZMQError) -> [[UInt8]]? {
        try receive(dontWait: dontWait, property: nil)?.frames
    }

    /// Receives one whole message and a metadata property of the connection it came on (`zmq_msg_gets`), e.g.
    /// `"User-Id"`, the user id the ZAP handler gave the peer, or `"Peer-Address"`: what a server needs to know who
    /// sent it. The property is nil when the connection has none (no ZAP handler, no such property).
    public func receive(dontWait: Bool = false, property: String?) throws(ZMQError) -> (
        frames: [[UInt8]], property: String?
    )? {
        let h = try live("zmq_msg_recv")
        var frames: [[UInt8]] = []
        var value: String?
        var more = true
        while more {
            var msg = zmq_msg_t()
            zmq_msg_init(&msg)
            defer { zmq_msg_close(&msg) }
            let flags: Int32 = (dontWait && frames.isEmpty) ? ZMQ_DONTWAIT : 0
            do {
                try check("zmq_msg_recv") { zmq_msg_recv(&msg, h, flags) }
            } catch {
                if error.isAgain && frames.isEmpty { return nil }
                throw error
            }
            let size = zmq_msg_size(&msg)
            if size > 0, let data = zmq_msg_data(&msg) {
                frames.append(Array(UnsafeRawBufferPointer(start: data, count: size)))
            } else {
                frames.append([])
            }
            // Every part of a message carries its connection's metadata (a ROUTER's identity part may not).
            if let property, value == nil, let text = zmq_msg_gets(&msg, property) { value = String(cString: text) }
            more = zmq_msg_more(&msg) == 1
        }
        return (frames, value)
    }

    /// Closes the socket, keeping unsent messages for at most `linger` milliseconds.
    public func close(linger: Int32 = 0) {
        guard let h = handle else { return }
        var v = linger
        zmq_setsockopt(h, ZMQ_LINGER, &v, MemoryLayout<Int32>.size)
        zmq_close(h)
        handle = nil
    }

    var rawHandle: UnsafeMutableRawPointer? { handle }
}

/// libzmq sockets must not be used from two threads: a `Socket` never crosses a concurrency domain.
@available(*, unavailable, message: "a ZeroMQ socket is owned by one thread; create it on the thread that uses it")
extension Socket: Sendable {}
