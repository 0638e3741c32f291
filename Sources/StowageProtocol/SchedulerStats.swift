/// `stats`: the pipeline's figures at a glance (the same ones the scheduler's `/metrics` exports).
public struct SchedulerStats: Codable, Sendable, Equatable {
    /// Titles per state.
    public var titles: [String: Int]
    /// Work waiting for a worker, per kind (`resolve`, `license`, `fetch`, `verify`).
    public var queued: [String: Int]
    /// Tasks out with workers.
    public var leases: Int
    /// Live workers per kind.
    public var workers: [String: Int]
    /// Bytes verified since the scheduler started, and the rate over the last ~10 s.
    public var verifiedBytes: Int64
    public var bytesPerSecond: Double
    /// Bytes still to come for titles in progress, and the time that takes at the current rate (nil when idle).
    public var bytesRemaining: Int64
    public var etaSeconds: Double?
    /// Retries by reason (error code) since start.
    public var retries: [String: Int]
    /// Malformed messages dropped since start.
    public var droppedMessages: Int
    public var uptimeSeconds: Double
    /// Seconds left of the start-up grace during which every title counts as being played, so the quota evicts
    /// nothing and `list --evictable` is empty (plays under way report within it); 0 or null past it.
    public var evictionGraceSeconds: Double?
    /// The disk and the quota (absent from a scheduler of an earlier version).
    public var disk: DiskFigures?

    public init(
        titles: [String: Int], queued: [String: Int], leases: Int, workers: [String: Int], verifiedBytes: Int64,
        bytesPerSecond: Double, bytesRemaining: Int64, etaSeconds: Double?, retries: [String: Int],
        droppedMessages: Int,
        uptimeSeconds: Double
    ) {
        self.titles = titles
        self.queued = queued
        self.leases = leases
        self.workers = workers
        self.verifiedBytes = verifiedBytes
        self.bytesPerSecond = bytesPerSecond
        self.bytesRemaining = bytesRemaining
        self.etaSeconds = etaSeconds
        self.retries = retries
        self.droppedMessages = droppedMessages
        self.uptimeSeconds = uptimeSeconds
    }
}
