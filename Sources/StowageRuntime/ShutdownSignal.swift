import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM / SIGINT turned into a flag and a wake-up, so a poll loop can stop gracefully.
public final class ShutdownSignal: Sendable {
    private let requested = Atomic<Bool>(false)
    private nonisolated(unsafe) var sources: [DispatchSourceSignal] = []
    private let wakers: Mutex<[Waker]> = Mutex([])

    public init() {
        var list: [DispatchSourceSignal] = []
        for sig in [SIGTERM, SIGINT] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [weak self] in self?.trigger() }
            source.resume()
            list.append(source)
        }
        sources = list
    }

    /// Also wake this waker when the signal arrives.
    public func notify(_ waker: Waker) { wakers.withLock { $0.append(waker) } }

    public var isRequested: Bool { requested.load(ordering: .acquiring) }

    /// Requests shutdown (as if SIGTERM arrived).
    public func trigger() {
        requested.store(true, ordering: .releasing)
        for w in wakers.withLock({ $0 }) { w.wake() }
    }
}
