import StowageProtocol
import Testing

@testable import StowageSchedulerCore

/// Who hears about titles (``EventFeed``) and the workers as `stowctl workers` shows them.
@Suite struct EventFeedTests {
    @Test func progressIsThrottledPerTitleAndStateChangesAreNot() {
        var feed = EventFeed<String>(subscriberLifetime: 3)
        var sent: [Bool] = []
        for (token, throttled, now) in [
            ("a", true, 10.0), ("a", true, 10.2), ("b", true, 10.2), ("a", false, 10.21), ("a", true, 10.3),
            ("a", true, 10.47),
        ] {
            sent.append(feed.shouldPublish(token, throttled: throttled, now: now))
        }
        // Within a quarter of a second: not sent; another title has its own throttle; an unthrottled event always
        // goes, and counts as the last one sent.
        #expect(sent == [true, false, true, true, false, true])
        feed.forget("a")
        let again = feed.shouldPublish("a", throttled: true, now: 10.48)
        #expect(again, "a forgotten title starts over")
    }

    @Test func subscriptionsLapseUnlessRenewed() {
        var feed = EventFeed<String>(subscriberLifetime: 3)
        let fresh = feed.subscribers.subscribe("w", to: ["a"], now: 0)
        let renewed = feed.subscribers.subscribe("w", to: ["a"], now: 2)
        #expect(fresh && !renewed)
        feed.subscribers.expire(now: 4.9)
        #expect(feed.subscribers.targets(for: "a") == ["w"])
        feed.subscribers.expire(now: 5)
        #expect(feed.subscribers.targets(for: "a").isEmpty)
    }

    @Test func workersAreShownByIdWithTheirLivenessAtNow() {
        var core = SchedulerCore(idPrefix: "p")
        core.register(
            id: "w2", info: Register(kind: .download, capacity: 2, host: "h", pid: 7, mayHoldConnections: false),
            now: 10)
        core.register(
            id: "w1", info: Register(kind: .license, capacity: 1, host: "h", pid: 8, mayHoldConnections: false),
            now: 10)
        let shown = core.workersShown(now: 10 + core.workerTimeout + 0.0004)
        #expect(shown.map(\.id) == ["w1", "w2"])
        #expect(shown[1].kind == .download && shown[1].capacity == 2 && shown[1].pid == 7)
        #expect(shown[0].lastSeenSecondsAgo == core.workerTimeout, "rounded to the millisecond")
        #expect(shown.allSatisfy { !$0.alive }, "silent past the timeout")
        #expect(core.workersShown(now: 10 + core.workerTimeout).allSatisfy { $0.alive })
    }
}
