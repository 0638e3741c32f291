import Synchronization

/// A request to stop, for a poll loop on its own thread: a flag the loop checks and the wakers it polls.
///
/// It installs no signal handlers: SIGTERM and SIGINT reach a process through swift-service-lifecycle's
/// `ServiceGroup` (see ``Lifecycle``), whose graceful shutdown calls ``trigger()`` (see ``PollLoopService``).
public final class ShutdownSignal: Sendable {
    private let requested = Atomic<Bool>(false)
    private let wakers: Mutex<[Waker]> = Mutex([])

    /// A stop not requested yet.
    public init() {}

    /// Also wake this waker when a stop is requested (at once if one already was).
    public func notify(_ waker: Waker) {
        wakers.withLock { $0.append(waker) }
        if isRequested { waker.wake() }
    }

    /// Whether a stop has been requested.
    public var isRequested: Bool { requested.load(ordering: .acquiring) }

    /// Requests the stop and wakes every registered waker.
    public func trigger() {
        requested.store(true, ordering: .releasing)
        for w in wakers.withLock({ $0 }) { w.wake() }
    }
}
