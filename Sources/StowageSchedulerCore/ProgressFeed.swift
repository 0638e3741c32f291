/// The live progress of titles: bytes of fetches in flight per title and task (a title's status counts them;
/// who hears of it is the subscribers' component's, ``EventFeed``).
public struct ProgressFeed: Sendable, TitleScoped {
    private var liveBytes: [String: [String: Int64]] = [:]

    public init() {}

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

    public mutating func forget(_ token: String) {
        liveBytes[token] = nil
    }
}
