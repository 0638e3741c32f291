import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageSchedulerService
import Testing

/// The subscribers component through the service: a snapshot on subscribing, published happenings, progress at
/// most four times a second, and a subscriber that cannot be reached dropped.
@Suite struct SubscribersServiceTests {
    func events(_ d: ServiceDriver, _ client: String) throws -> [TitleEvent] {
        try d.outbox.take(client).filter { $0.command == .event }.map { try FrameCodec.body(TitleEvent.self, from: $0) }
    }

    /// Subscribes `client` to `tokens` without taking what it was sent (the snapshot comes before the reply).
    func subscribe(_ d: ServiceDriver, _ tokens: [String], as client: String = "watcher") {
        let request = ClientRequest(
            requestID: "s\(UInt32.random(in: 0...UInt32.max))", operation: .subscribe(tokens: tokens))
        d.deliver(client, FrameCodec.encode(.request, request))
    }

    @Test func aNewSubscriberGetsASnapshotOfWhatItAskedForThenItsEvents() throws {
        let d = try ServiceDriver()
        let a = try d.submit("http://origin.test/a/master.m3u8")
        let b = try d.submit("http://origin.test/b/master.m3u8")
        subscribe(d, [a])
        let snapshot = try events(d, "watcher")
        #expect(snapshot.map(\.kind) == ["snapshot"])
        #expect(snapshot.first?.status.token == a)
        // A renewal is no new subscriber: no second snapshot.
        subscribe(d, [a])
        #expect(try events(d, "watcher").isEmpty)
        _ = try d.request(.pause(token: b))
        #expect(try events(d, "watcher").isEmpty, "b's events are not a's subscriber's")
        _ = try d.request(.pause(token: a))
        let paused = try events(d, "watcher")
        #expect(paused.map(\.kind) == ["state"])
        #expect(paused.first?.status.state == .suspended)
    }

    @Test func progressGoesOutAtMostFourTimesASecond() throws {
        let d = try ServiceDriver()
        let token = try d.licensedTitle(files: 8)
        #expect(try d.request(.subscribe(tokens: [token]), from: "watcher") == .ok)
        _ = d.outbox.take("watcher")
        let tasks = try d.tasks(for: "dl")
        #expect(tasks.count >= 2)
        for task in tasks { try d.fetchedAll("dl", task) }
        #expect(try events(d, "watcher").filter { $0.kind == "progress" }.count == 1, "one in the same instant")
        d.clock.advance(0.3)
        try d.fetchEverything("dl")
        #expect(try events(d, "watcher").contains { $0.kind == "progress" }, "a quarter of a second later")
    }

    @Test func aSubscriberThatCannotBeReachedIsDropped() throws {
        let d = try ServiceDriver()
        let token = try d.submit()
        #expect(try d.request(.subscribe(tokens: []), from: "watcher") == .ok)
        _ = d.outbox.take("watcher")
        d.outbox.gone.insert("watcher")
        _ = try d.request(.pause(token: token))
        d.outbox.gone.remove("watcher")
        _ = try d.request(.resume(token: token))
        #expect(try events(d, "watcher").isEmpty, "dropped when its event could not be sent")
    }
}
