/// At most one log line per key and interval: a refused peer may retry in a loop, and each attempt must not
/// cost a line. Forgets everything past `capacity` keys, so a peer inventing keys cannot make it grow without bound
/// (at worst a key is logged again early).
public struct RateLimitedLog: Sendable {
    public let interval: Double
    public let capacity: Int
    private var last: [String: Double] = [:]

    public init(interval: Double, capacity: Int = 10_000) {
        self.interval = interval
        self.capacity = capacity
    }

    /// Whether to log about `key` at `now` (seconds, monotonic); if so, the interval starts again.
    public mutating func shouldLog(_ key: String, now: Double) -> Bool {
        guard now - (last[key] ?? -.infinity) >= interval else { return false }
        if last.count >= capacity { last.removeAll() }
        last[key] = now
        return true
    }
}
