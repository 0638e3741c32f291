/// Clients subscribed to title events: each to some titles (or to all), until its subscription expires
/// unless renewed. Pure value, driven with monotonic seconds; `Subscriber` identifies a client (the
/// scheduler uses its socket identity).
public struct Subscriptions<Subscriber: Hashable & Sendable>: Sendable {
    struct Entry: Sendable {
        /// Empty: every title.
        var tokens: Set<String>
        var expires: Double
    }

    private var entries: [Subscriber: Entry] = [:]
    /// How long a subscription lasts without renewal, seconds.
    public var lifetime: Double

    /// No subscribers yet; subscriptions last `lifetime` seconds unless renewed.
    public init(lifetime: Double) {
        self.lifetime = lifetime
    }

    /// Whether there are no subscribers.
    public var isEmpty: Bool { entries.isEmpty }

    /// Subscribes `subscriber` to `tokens` (empty: every title) or renews its subscription with them.
    /// Returns true for a new subscriber (it is owed a snapshot of what it subscribed to).
    @discardableResult
    public mutating func subscribe(_ subscriber: Subscriber, to tokens: [String], now: Double) -> Bool {
        let fresh = entries[subscriber] == nil
        entries[subscriber] = Entry(tokens: Set(tokens), expires: now + lifetime)
        return fresh
    }

    /// Ends a subscription (the client asked, or cannot be reached).
    public mutating func remove(_ subscriber: Subscriber) {
        entries[subscriber] = nil
    }

    /// Drops subscriptions not renewed in time.
    public mutating func expire(now: Double) {
        entries = entries.filter { $0.value.expires > now }
    }

    /// The subscribers to events of the title `token`.
    public func targets(for token: String) -> [Subscriber] {
        entries.filter { $0.value.tokens.isEmpty || $0.value.tokens.contains(token) }.map(\.key)
    }
}
