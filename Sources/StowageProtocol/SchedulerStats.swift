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
    /// Which scheduler leads the schedulers sharing the store (absent before any claimed it, or from a scheduler of
    /// an earlier version), and whether it is the one answering.
    public var leader: LeaderFigures?
    public var leads: Bool?

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

/// The leader of the schedulers sharing a store, as `stats` shows it.
public struct LeaderFigures: Codable, Sendable, Equatable {
    /// The scheduler holding the lead (host name, pid and a random part).
    public var holder: String
    /// Its term: grows by one at each takeover.
    public var term: Int64
    /// When the term began (seconds since 1970).
    public var since: Double
    /// Where clients reach it.
    public var endpoints: [String]

    public init(holder: String, term: Int64, since: Double, endpoints: [String]) {
        self.holder = holder
        self.term = term
        self.since = since
        self.endpoints = endpoints
    }
}
