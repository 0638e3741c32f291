import Synchronization

/// A token bucket shared by all fetches of one worker: the worker's share of the global bandwidth cap.
public final class RateLimiter: Sendable {
    private struct State {
        var rate: Double?  // bytes per second; nil = unlimited
        var available: Double
        var last: ContinuousClock.Instant
    }
    private let state: Mutex<State>

    public init(bytesPerSecond: Int64? = nil) {
        state = Mutex(State(rate: bytesPerSecond.map(Double.init), available: 0, last: .now))
    }

    /// Changes the rate (nil or 0 = unlimited).
    /// No cap is set: bytes are never held back.
    public var isUnlimited: Bool { state.withLock { $0.rate == nil } }

    public func setRate(_ bytesPerSecond: Int64?) {
        state.withLock {
            $0.rate = bytesPerSecond.flatMap { $0 > 0 ? Double($0) : nil }
            $0.available = 0
            $0.last = .now
        }
    }

    /// Takes `bytes` from the bucket, sleeping as long as the rate requires.
    public func consume(_ bytes: Int) async {
        let wait: Double = state.withLock { s in
            guard let rate = s.rate else { return 0 }
            let now = ContinuousClock.now
            let elapsed = now - s.last
            s.last = now
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            s.available = min(rate, s.available + seconds * rate) - Double(bytes)  // burst of at most one second
            return s.available < 0 ? -s.available / rate : 0
        }
        if wait > 0 { try? await Task.sleep(for: .milliseconds(Int(wait * 1000))) }
    }
}
