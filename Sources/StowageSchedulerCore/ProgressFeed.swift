/// Who hears about titles, and the live progress they hear: bytes of fetches in flight per title and task,
/// and progress events throttled to four a second per title.
public struct ProgressFeed: Sendable, TitleScoped {
    /// The least time between two progress events of one title (seconds).
    public static let interval = 0.25
    /// Clients subscribed to title events, by socket identity (renewed by each `subscribe`).
    public var subscribers: Subscriptions<[UInt8]>
    private var liveBytes: [String: [String: Int64]] = [:]
    private var lastEvent: [String: Double] = [:]

    public init(subscriberLifetime: Double) {
        subscribers = Subscriptions(lifetime: subscriberLifetime)
    }

    /// A fetch in flight reported `bytes` so far.
    public mutating func progress(_ token: String, task: String, bytes: Int64) {
        liveBytes[token, default: [:]][task] = max(0, bytes)
    }

    /// A fetch finished: its bytes count as stored from now on.
    public mutating func finished(_ token: String, task: String) { liveBytes[token]?[task] = nil }

    /// Bytes received so far by the title's fetches in flight (tasks `live` still holds).
    public func inFlight(_ token: String, live: (String) -> Bool) -> Int64 {
        (liveBytes[token] ?? [:]).filter { live($0.key) }.values.reduce(0, +)
    }

    /// Whether a progress event of the title goes out at `now` (and, if so, it counts as sent).
    public mutating func shouldPublish(_ token: String, throttled: Bool, now: Double) -> Bool {
        if throttled, let last = lastEvent[token], now - last < Self.interval { return false }
        lastEvent[token] = now
        return true
    }

    public mutating func forget(_ token: String) {
        liveBytes[token] = nil
        lastEvent[token] = nil
    }
}
