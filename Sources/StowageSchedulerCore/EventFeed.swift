/// Who hears about titles (`stowctl watch`, the gateway's listing): subscribers by socket identity, renewed by each
/// `subscribe` and dropped three heartbeats after the last, and progress events throttled to four a second per
/// title (state changes are never throttled).
public struct EventFeed<Subscriber: Hashable & Sendable>: Sendable {
    /// The least time between two throttled progress events of one title (seconds).
    public static var interval: Double { 0.25 }
    public var subscribers: Subscriptions<Subscriber>
    private var lastEvent: [String: Double] = [:]

    public init(subscriberLifetime: Double) {
        subscribers = Subscriptions(lifetime: subscriberLifetime)
    }

    /// Whether a progress event of the title goes out at `now` (and, if so, it counts as sent).
    public mutating func shouldPublish(_ token: String, throttled: Bool, now: Double) -> Bool {
        if throttled, let last = lastEvent[token], now - last < Self.interval { return false }
        lastEvent[token] = now
        return true
    }

    /// The title went: its throttle goes.
    public mutating func forget(_ token: String) { lastEvent[token] = nil }
}
