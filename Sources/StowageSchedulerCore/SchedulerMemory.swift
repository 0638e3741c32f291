/// Everything the scheduler remembers between messages beside the store and the work queues
/// (``SchedulerCore``), one value per concern. What is kept per title is forgotten in one place,
/// ``forget(_:)``, when the title stops or ends.
public struct SchedulerMemory: Sendable {
    /// Work waiting for its retry time, and failed attempts of resolve and license work.
    public var retries = RetryQueue()
    /// Fetch pacing and batch sizes.
    public var pacing = FetchPacing()
    /// Subscribers and live progress.
    public var progress: ProgressFeed
    /// Stored limits, bandwidth shares, disk cushion.
    public var limits = LimitState()
    /// Periodic duties.
    public var timers: SchedulerTimers
    /// Headers and fetch scopes per title.
    public var caches = TitleCaches()
    /// When each refused key last had a refusal logged (a refused caller may insist).
    public var refusals = RateLimitedLog(interval: 60)
    /// When each unknown worker was last told to register again (at most once per two heartbeats).
    public var registerAgain: RateLimitedLog
    /// The wall-clock guard (persisted by the service).
    public var clockEpoch: ClockEpoch
    /// Work that keeps dying with its workers (a title whose input traps them).
    public var crashSuspects = CrashSuspects()

    /// `heartbeat`: seconds between heartbeats; subscribers live three of them.
    public init(heartbeat: Double, clockEpoch: ClockEpoch) {
        progress = ProgressFeed(subscriberLifetime: 3 * heartbeat)
        timers = SchedulerTimers(heartbeat: heartbeat)
        registerAgain = RateLimitedLog(interval: 2 * heartbeat)
        self.clockEpoch = clockEpoch
    }

    /// The title stopped or ended: every concern forgets it.
    public mutating func forget(_ token: String) {
        retries.forget(token)
        pacing.forget(token)
        progress.forget(token)
        caches.forget(token)
        crashSuspects.forget(token)
    }
}
