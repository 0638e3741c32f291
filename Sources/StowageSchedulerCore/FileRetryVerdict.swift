import StowageProtocol

/// What a file's failed attempt leads to (its attempts counted, and its host's failures in a row): connectivity is
/// the host's, not the file's, so failures in a row at a host (any file, no answer between) spend the budget as
/// well, and an outage is noticed in about a minute however many files are queued.
public enum FileRetryVerdict: Sendable, Equatable {
    /// Queued again after `delay` seconds (backoff with jitter, never before the origin's `Retry-After`).
    case again(delay: Double)
    /// The budget is spent on the network: the title waits for its host instead of failing; the file's count
    /// starts over (`attempts`: how many failed in a row, for the message).
    case waitForHost(attempts: Int)
    /// The budget is spent: a recording records a gap, any other title fails.
    case giveUp

    /// `attempts`: the file's failed attempts, this one included; `inARow`: its host's failures in a row (0 when
    /// not a network failure); `maxAttempts`: the budget (`--max-attempts`).
    public static func of(
        attempts: Int, inARow: Int, maxAttempts: Int, code: ErrorCode, retryAfter: Double?,
        jitter: Double = Double.random(in: RetryQueue.retryBackoff.jitter)
    ) -> FileRetryVerdict {
        guard attempts >= maxAttempts || inARow >= maxAttempts else {
            return .again(delay: max(RetryQueue.backoff(attempt: attempts, jitter: jitter), retryAfter ?? 0))
        }
        return code == .network ? .waitForHost(attempts: max(attempts, inARow)) : .giveUp
    }
}
