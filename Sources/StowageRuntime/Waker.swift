#if canImport(Glibc)
    import Glibc
#endif

/// A self-pipe that wakes a poll loop from other threads (tasks finishing, signals).
public final class Waker: Sendable {
    /// The end the loop polls for readability.
    public let fd: Int32
    private let writeEnd: Int32

    public init() {
        var fds: [Int32] = [-1, -1]
        let rc = pipe(&fds)
        precondition(rc == 0, "pipe failed: \(String(cString: strerror(errno)))")
        for f in fds {
            _ = fcntl(f, F_SETFL, fcntl(f, F_GETFL) | O_NONBLOCK)
            _ = fcntl(f, F_SETFD, FD_CLOEXEC)
        }
        fd = fds[0]
        writeEnd = fds[1]
    }

    /// Wakes the loop. Safe from any thread; a full pipe already means "awake".
    public func wake() {
        var one: UInt8 = 1
        _ = write(writeEnd, &one, 1)
    }

    /// Clears pending wake-ups (loop thread only).
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(fd, &buffer, buffer.count) > 0 {}
    }

    deinit {
        close(fd)
        close(writeEnd)
    }
}
