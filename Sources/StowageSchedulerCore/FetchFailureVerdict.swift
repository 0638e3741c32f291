import StowageProtocol

/// What a fetch that failed means for its file and title, from the worker's failure alone (the service then asks
/// the concerns the verdict names: a peer's fallback, a recording's gap, a signed URL's refresh).
public enum FetchFailureVerdict: Sendable, Equatable {
    /// The disk filled: the title waits for space (`disk-full`), no attempt counted.
    case waitForSpace
    /// The origin refused the file for good: a live recording records a gap for it first when the file is gone
    /// (`goneFirst`, HTTP 404/410: the playlist moved on), else a signed URL is refreshed, else a recording records a
    /// gap, else the title fails.
    case refused(goneFirst: Bool)
    /// Tried again with backoff, counting an attempt (from zero when `progressMade`: bytes came, so the file and
    /// its host count as answering); the origin's `Retry-After` slows its host down first (`slowDown`).
    case retry(slowDown: SlowDown?, progressMade: Bool)

    /// An origin's `Retry-After`: its host gets no new work until `resumeAfter` seconds from now, and full speed
    /// back after `recoverAfter`.
    public struct SlowDown: Sendable, Equatable {
        public var host: String
        public var resumeAfter: Double
        public var recoverAfter: Double
    }

    /// Seconds after the `Retry-After` wait until a slowed host has its full share of work again.
    public static let recovery: Double = 30

    /// The verdict on `failure`.
    public static func of(_ failure: TaskFailure) -> FetchFailureVerdict {
        if failure.code == .diskFull { return .waitForSpace }
        guard failure.retryable else { return .refused(goneFirst: failure.status == 404 || failure.status == 410) }
        let slowDown = failure.host.flatMap { host in
            failure.retryAfter.map { SlowDown(host: host, resumeAfter: $0, recoverAfter: $0 + recovery) }
        }
        return .retry(slowDown: slowDown, progressMade: failure.madeProgress == true)
    }
}
