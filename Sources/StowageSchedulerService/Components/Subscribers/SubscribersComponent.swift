import StowageProtocol
import StowageSchedulerCore
import StowageStore

/// Who hears about titles: clients that `subscribe` (`stowctl watch`, the gateway) get a snapshot of what they
/// subscribed to, then an event with the title's status for every recorded happening that is published and for
/// progress (at most four a second per title). A subscription lasts three heartbeats unless renewed; a subscriber
/// that cannot be reached is dropped.
final class SubscribersComponent: SchedulerComponent {
    let name = "subscribers"
    private let context: ComponentContext
    private var feed: EventFeed<[UInt8]>
    private var expiry: Every
    /// Sends a message to a client's socket identity; false when it is gone.
    private let send: ([UInt8], [[UInt8]]) -> Bool

    init(context: ComponentContext, heartbeat: Double, send: @escaping ([UInt8], [[UInt8]]) -> Bool) {
        self.context = context
        self.send = send
        feed = EventFeed(subscriberLifetime: 3 * heartbeat)
        expiry = Every(seconds: heartbeat)
    }

    func tick(now: Double) {
        if expiry.isDue(now: now) { feed.subscribers.expire(now: now) }
    }

    func answer(_ request: ComponentRequest) throws -> ReplyBody? {
        switch request.operation {
        case .subscribe(let tokens):
            let store = context.store
            if feed.subscribers.subscribe(request.identity, to: tokens, now: context.clock.monotonic()) {
                let titles = tokens.isEmpty ? try store.titles() : try tokens.compactMap { try store.title($0) }
                for title in titles { publish(title.token, kind: "snapshot", to: [request.identity]) }
            }
            return .ok
        case .unsubscribe:
            feed.subscribers.remove(request.identity)
            return .ok
        default:
            return nil
        }
    }

    func observe(_ event: TitleHappening) throws {
        if let published = event.published {
            publish(event.token, kind: published, detail: published == "evicted" ? event.detail : nil)
        }
    }

    func forget(_ token: String) { feed.forget(token) }

    /// A client that could not be reached: its subscription ends.
    func gone(_ identity: [UInt8]) { feed.subscribers.remove(identity) }

    /// Progress events, at most four a second per title when `throttled`.
    func progress(_ token: String, throttled: Bool) {
        guard feed.shouldPublish(token, throttled: throttled, now: context.clock.monotonic()) else { return }
        publish(token, kind: "progress")
    }

    /// Sends an event about a title to its subscribers (or to `only`).
    private func publish(_ token: String, kind: String, detail: String? = nil, to only: [[UInt8]]? = nil) {
        let targets = only ?? feed.subscribers.targets(for: token)
        guard !targets.isEmpty, let status = try? context.desk.status(token) else { return }
        let frames = FrameCodec.encode(.event, TitleEvent(kind: kind, status: status, detail: detail))
        for identity in targets where !send(identity, frames) { feed.subscribers.remove(identity) }
    }
}
