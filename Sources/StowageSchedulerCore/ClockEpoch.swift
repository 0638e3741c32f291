/// The clock guard's memory: the latest wall-clock time seen and the epoch, bumped each time the clock is
/// seen going back by more than a tolerance (licenses granted in an earlier epoch count as expired until
/// renewed). Pure value; the scheduler persists what ``observe(now:)`` reports changed.
public struct ClockEpoch: Sendable, Equatable {
    /// What an observation changed.
    public enum Change: Sendable, Equatable {
        /// Nothing to persist: the clock did not move past the latest time seen.
        case none
        /// The clock moved on: `lastSeen` is now.
        case advanced
        /// The clock went back by more than the tolerance from `from`: a new epoch starts, and `lastSeen`
        /// is now.
        case rolledBack(from: Double)
    }

    /// Bumped at each rollback.
    public private(set) var epoch: Int
    /// The latest wall-clock time seen (nil before the first observation).
    public private(set) var lastSeen: Double?
    /// Seconds the clock may go back without counting as a rollback (NTP steps, a resumed VM).
    public let tolerance: Double

    /// The state persisted by a previous run (or none).
    public init(epoch: Int = 0, lastSeen: Double? = nil, tolerance: Double) {
        self.epoch = epoch
        self.lastSeen = lastSeen
        self.tolerance = tolerance
    }

    /// The wall clock reads `now`. Going back by more than the tolerance starts a new epoch (time-limited
    /// licenses granted before it count as expired until renewed) and restarts the record from `now`.
    public mutating func observe(now: Double) -> Change {
        if let last = lastSeen, now + tolerance < last {
            epoch += 1
            lastSeen = now
            return .rolledBack(from: last)
        }
        guard now > (lastSeen ?? 0) else { return .none }
        lastSeen = now
        return .advanced
    }
}
