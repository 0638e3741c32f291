import Foundation

/// Where the scheduler reads time: monotonic seconds for deadlines, leases, rates and probes; wall-clock
/// seconds since 1970 for what is stored or shown (and license terms, which are wall-clock by nature).
/// Injected, so the service's timing is tested by moving a ``ManualClock`` instead of the machine's clock.
public protocol SchedulerClock: Sendable {
    /// Seconds on a clock that never jumps (not related to the wall clock).
    func monotonic() -> Double
    /// Wall-clock seconds since 1970.
    func now() -> Double
}

/// The machine's clocks.
public struct SystemClock: SchedulerClock {
    public init() {}

    public func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    public func now() -> Double { Date().timeIntervalSince1970 }
}

/// Clocks that move only when told: `advance` moves both, `stepWall` moves the wall clock alone (a clock
/// step, forward or back). For tests of timers, leases and clock steps in milliseconds.
public final class ManualClock: SchedulerClock, @unchecked Sendable {
    // @unchecked: the two readings are guarded by `lock`; a test thread and the service may both read.
    private let lock = NSLock()
    private var mono: Double
    private var wall: Double

    public init(monotonic: Double = 1_000, wall: Double = 1_800_000_000) {
        mono = monotonic
        self.wall = wall
    }

    public func monotonic() -> Double { lock.withLock { mono } }
    public func now() -> Double { lock.withLock { wall } }

    /// Time passes: both clocks move by `seconds`.
    public func advance(_ seconds: Double) {
        lock.withLock {
            mono += seconds
            wall += seconds
        }
    }

    /// The wall clock is set `seconds` forward (negative: back); the monotonic clock does not move.
    public func stepWall(_ seconds: Double) { lock.withLock { wall += seconds } }
}
