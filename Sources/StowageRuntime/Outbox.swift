import Synchronization

/// Messages produced on any thread, sent by the socket's owner: the bridge from Swift concurrency to a
/// poll loop (ZeroMQ sockets are not thread-safe).
public final class Outbox: Sendable {
    private let queue = Mutex<[[[UInt8]]]>([])
    public let waker = Waker()

    public init() {}

    /// Queues a message and wakes the loop.
    public func post(_ frames: [[UInt8]]) {
        queue.withLock { $0.append(frames) }
        waker.wake()
    }

    /// Takes everything queued (loop thread).
    public func take() -> [[[UInt8]]] {
        waker.drain()
        return queue.withLock { q in
            let out = q
            q.removeAll()
            return out
        }
    }
}
