import StowageProtocol

/// A title's last attempt failed for connectivity and it tries again before its budget makes it wait for the
/// host: `status` shows the wait from this first failure (`waitingFor`, `nextProbeAt` as the next attempt, the
/// failure as `error`), not a minute later when the title is suspended `network`.
struct ConnectivityRetry: Sendable, Equatable {
    /// The host (`host:port`) that did not answer.
    var host: String
    /// What the attempt met (`connection refused by …`).
    var message: String
    /// Attempts failed so far in this run of failures.
    var attempts: Int
    /// When the next attempt is due (monotonic seconds).
    var nextAttempt: Double

    /// How long past its next attempt an entry still describes the title: a retry that never reported back
    /// (its task went elsewhere) stops showing by itself.
    static let staleAfter = 120.0

    /// The `error` a retrying title shows.
    var error: TitleError {
        TitleError(
            code: .network,
            message: "\(message); attempt \(attempts) failed, trying again (the title waits for \(host) to answer "
                + "when its attempts run out)")
    }
}
