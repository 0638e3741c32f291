/// Which titles devices are playing, as far as the scheduler can tell: a play authorised (`play`, `playOn`),
/// a key handed out or play time reported (the gateway reports every few seconds while it serves) within the
/// last `idle` seconds (monotonic). What the catalogue would delete waits while a title is being played.
public struct PlayActivity: Sendable, Equatable {
    /// Seconds after the last sign of a play that the play counts as over.
    public var idle: Double
    private var lastSeen: [String: Double] = [:]
    /// When watching began (the scheduler's start, monotonic): a play already under way then is only seen at its
    /// next report, so for ``startupBlindness`` seconds every title may be being played.
    private var since: Double?

    /// Seconds after the start before the absence of a sign means no play: the gateway reports play time every
    /// second or so while it serves, so after this every play under way has shown itself.
    public static let startupBlindness = 15.0

    public init(idle: Double = 90) { self.idle = idle }

    /// Marks the start of watching (the first call counts).
    public mutating func begin(now: Double) { if since == nil { since = now } }

    /// Whether plays can be told from none yet (false until ``startupBlindness`` after ``begin(now:)``).
    public func seesEveryPlay(now: Double) -> Bool {
        since.map { now - $0 >= min(idle, Self.startupBlindness) } ?? false
    }

    /// Seconds until ``seesEveryPlay(now:)`` holds (0 once it does).
    public func blindFor(now: Double) -> Double {
        guard let since else { return min(idle, Self.startupBlindness) }
        return max(0, min(idle, Self.startupBlindness) - (now - since))
    }

    /// A sign that `token` is being played.
    public mutating func saw(_ token: String, now: Double) {
        lastSeen[token] = now
        if lastSeen.count > 4096 { lastSeen = lastSeen.filter { now - $0.value <= idle } }
    }

    /// The titles being played at `now`.
    public func playing(now: Double) -> Set<String> {
        Set(lastSeen.filter { now - $0.value <= idle }.keys)
    }
}
