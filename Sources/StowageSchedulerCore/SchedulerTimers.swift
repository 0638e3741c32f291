/// The scheduler's periodic duties and when each is due next (monotonic seconds): heartbeats to workers
/// (with subscriber expiry, bandwidth shares and metrics), the disk (space back, waits given up) every
/// 2 s, the clock guard (with renewals and the scrub) every 10 s, the fill windows and bandwidth schedule (against
/// the wall clock read then) every 1 s, and `--notify` delivery (reports taken, the next events handed out) every
/// 0.5 s. Components keep their own timers (``Every``): the catalogue's pass is the catalogue component's.
public struct SchedulerTimers: Sendable, Equatable {
    public enum Duty: Sendable, Hashable, CaseIterable {
        case heartbeat, clock, disk, window, notify
    }

    /// Seconds between two runs of each duty.
    public var intervals: [Duty: Double]
    private var next: [Duty: Double] = [:]

    /// Every duty is due at the first tick.
    public init(
        heartbeat: Double, disk: Double = 2, clock: Double = 10, window: Double = 1, notify: Double = 0.5
    ) {
        intervals = [.heartbeat: heartbeat, .disk: disk, .clock: clock, .window: window, .notify: notify]
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
