/// Which titles devices are playing, as far as the scheduler can tell: a play authorised (`play`, `playOn`),
/// a key handed out or play time reported (the gateway reports every few seconds while it serves) within the
/// last `idle` seconds (monotonic). What the catalogue would delete waits while a title is being played.
public struct PlayActivity: Sendable, Equatable {
    /// Seconds after the last sign of a play that the play counts as over.
    public var idle: Double
    private var lastSeen: [String: Double] = [:]

    public init(idle: Double = 90) { self.idle = idle }

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
