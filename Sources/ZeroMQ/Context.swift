import CZeroMQ

/// A ZeroMQ context: owns the I/O threads. Create one per process and share it; it is thread-safe.
///
/// `@unchecked Sendable`: the handle is an immutable pointer to a libzmq context, which libzmq documents
/// as safe to use from any thread (unlike its sockets); nothing in this class is mutated after `init`.
public final class Context: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    /// Creates a context with `ioThreads` I/O threads.
    public init(ioThreads: Int32 = 1) throws(ZMQError) {
        guard let raw = zmq_ctx_new() else { throw ZMQError.last("zmq_ctx_new") }
        handle = raw
        zmq_ctx_set(raw, ZMQ_IO_THREADS, ioThreads)
        // Rogue peers must not exhaust us; ZeroMQ default is 1023 sockets.
        zmq_ctx_set(raw, ZMQ_BLOCKY, 0)
    }

    /// Opens a socket of the given type. The socket is owned by the caller's thread.
    public func socket(_ type: SocketType) throws(ZMQError) -> Socket {
        try Socket(context: self, type: type)
    }

    deinit {
        // Sockets must be closed before; zmq_ctx_term blocks until they are.
        _ = zmq_ctx_term(handle)
    }

    /// The libzmq version as (major, minor, patch).
    public static var version: (Int32, Int32, Int32) {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return (major, minor, patch)
    }

    /// Whether libzmq was built with a capability such as "curve" or "ipc".
    public static func has(_ capability: String) -> Bool { zmq_has(capability) == 1 }
}
