/// Everything the scheduler remembers between messages beside the store and the work queues
/// (``SchedulerCore``), one value per concern. What is kept per title is forgotten in one place,
/// ``forget(_:)``, when the title stops or ends.
public struct SchedulerMemory: Sendable {
    /// Work waiting for its retry time, and failed attempts of resolve and license work.
    public var retries = RetryQueue()
    /// Fetch pacing and batch sizes.
    public var pacing = FetchPacing()
    /// Live progress: bytes of fetches in flight.
    public var progress = ProgressFeed()
    /// Heartbeats to workers (with metrics); the components keep their own timers.
    public var heartbeat: Every
    /// When each unknown worker was last told to register again (at most once per two heartbeats).
    public var registerAgain: RateLimitedLog

    /// `heartbeat`: seconds between heartbeats.
    public init(heartbeat: Double) {
        self.heartbeat = Every(seconds: heartbeat)
        registerAgain = RateLimitedLog(interval: 2 * heartbeat)
    }

    /// The title stopped or ended: every concern forgets it.
    public mutating func forget(_ token: String) {
        retries.forget(token)
        pacing.forget(token)
        progress.forget(token)
    }
}
