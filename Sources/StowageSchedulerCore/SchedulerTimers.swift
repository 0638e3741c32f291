/// The scheduler's periodic duties and when each is due next (monotonic seconds): heartbeats to workers
/// (with subscriber expiry, bandwidth shares and metrics), the disk (space back, waits given up) every
/// 2 s, the clock guard every 10 s, and the bandwidth schedule (against the wall clock read then) every 1 s.
/// Components keep their own timers (``Every``).
public struct SchedulerTimers: Sendable, Equatable {
    public enum Duty: Sendable, Hashable, CaseIterable {
        case heartbeat, clock, disk, bandwidth
    }

    /// Seconds between two runs of each duty.
    public var intervals: [Duty: Double]
    private var next: [Duty: Double] = [:]

    /// Every duty is due at the first tick.
    public init(
        heartbeat: Double, disk: Double = 2, clock: Double = 10, bandwidth: Double = 1
    ) {
        intervals = [.heartbeat: heartbeat, .disk: disk, .clock: clock, .bandwidth: bandwidth]
    }

    /// The duties due at `now`, each then scheduled one interval later; in a fixed order.
    public mutating func due(now: Double) -> [Duty] {
        Duty.allCases.filter { duty in
            guard now >= next[duty] ?? 0 else { return false }
            next[duty] = now + (intervals[duty] ?? 1)
            return true
        }
    }
}
