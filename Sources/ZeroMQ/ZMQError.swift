import CZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// An error from libzmq, carrying the `errno` it reported so callers can tell
/// "try again" (`EAGAIN`), "interrupted" (`EINTR`), "context terminated" (`ETERM`) and
/// "peer not routable" (`EHOSTUNREACH`) apart.
public struct ZMQError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The `errno` value libzmq left behind.
    public let code: Int32
    /// What we were doing when it failed (e.g. `zmq_bind(ipc:///x)`).
    public let operation: String

    public init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
    }

    /// Captures `zmq_errno()` right after a failing call; the one place errno is read.
    static func last(_ operation: String) -> ZMQError {
        ZMQError(code: zmq_errno(), operation: operation)
    }

    public var isAgain: Bool { code == EAGAIN }
    public var isInterrupted: Bool { code == EINTR }
    public var isTerminated: Bool { code == ETERM }
    public var isHostUnreachable: Bool { code == EHOSTUNREACH }

    public var description: String {
        "\(operation) failed: \(String(cString: zmq_strerror(code))) (errno \(code))"
    }
}

/// Runs a libzmq call that returns -1 on failure, retrying on `EINTR`, and throws the errno otherwise.
@discardableResult
func check(
    _ operation: @autoclosure () -> String, retryOnInterrupt: Bool = true,
    _ body: () -> Int32
) throws(ZMQError) -> Int32 {
    while true {
        let rc = body()
        if rc >= 0 { return rc }
        let error = ZMQError.last(operation())
        if retryOnInterrupt && error.isInterrupted { continue }
        throw error
    }
}
