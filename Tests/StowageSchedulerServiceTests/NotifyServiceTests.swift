import Foundation
import StowageProtocol
import StowageSchedulerService
import StowageStore
import Testing

/// `--notify` through the service: events stored with the moves they report, handed out in order per title,
/// retried after a failure, and still waiting after a restart.
@Suite struct NotifyServiceTests {
    static let receiver = "http://127.0.0.1:9/hook"

    static func driver(feed: NotifyFeed, secret: Data? = Data("s3cret".utf8)) throws -> ServiceDriver {
        try ServiceDriver { options in
            options.notify.receivers = [receiver]
            options.notify.secret = secret
            options.notify.feed = feed
        }
    }

    static func events(_ store: Store) throws -> [NotifyEvent] {
        try store.waitingNotifications(perReceiver: 1_000).map {
            try JSONDecoder().decode(NotifyEvent.self, from: $0.body)
        }
    }

    @Test func eachMoveOfATitleIsStoredAsAStateEventWithItsStatus() throws {
        let feed = NotifyFeed()
        let d = try Self.driver(feed: feed)
        let token = try d.licensedTitle(files: 2)
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        let events = try Self.events(d.store)
        #expect(events.allSatisfy { $0.kind == .state && $0.token == token })
        #expect(
            events.map(\.detail) == [
                "requested", "requested -> licensing", "licensing -> requested", "requested -> downloading",
                "downloading -> completed",
            ])
        #expect(events.last?.status?.state == .completed)
        #expect(Set(events.map(\.id)).count == events.count)
    }

    @Test func theNextEventOfATitleGoesOnlyAfterThePreviousWasDelivered() throws {
        let feed = NotifyFeed()
        let d = try Self.driver(feed: feed)
        let token = try d.licensedTitle(files: 1)
        try d.fetchEverything("dl")
        let stored = try Self.events(d.store)
        #expect(stored.count == 5)
        d.advance(0.5)
        let first = feed.parcels.take()
        #expect(first.count == 1)
        let body = try #require(first.first)
        #expect(try JSONDecoder().decode(NotifyEvent.self, from: body.body).id == stored[0].id)
        #expect(body.signature == NotifySignature.value(secret: Data("s3cret".utf8), body: body.body))
        d.advance(0.5)
        #expect(feed.parcels.take().isEmpty)  // the first is still out
        // The receiver is down: the same event again, after the backoff, not the next one.
        feed.outcomes.post(.failed(id: body.id, receiver: Self.receiver, error: "connection refused"))
        d.advance(0.5)
        #expect(feed.parcels.take().isEmpty)
        d.advance(2)
        #expect(feed.parcels.take().map(\.id) == [body.id])
        feed.outcomes.post(.delivered(id: body.id, receiver: Self.receiver))
        d.advance(0.5)
        let second = feed.parcels.take()
        #expect(try second.map { try JSONDecoder().decode(NotifyEvent.self, from: $0.body).id } == [stored[1].id])
        #expect(try Self.events(d.store).count == 4)
        _ = token
    }

    @Test func eventsOutWhenTheSchedulerDiesAreSentAgainAfterTheRestart() throws {
        let feed = NotifyFeed()
        let d = try Self.driver(feed: feed)
        _ = try d.licensedTitle(files: 1)
        d.advance(0.5)
        let out = feed.parcels.take()
        #expect(out.count == 1)
        try d.restart()
        d.advance(0.5)
        #expect(feed.parcels.take().map(\.id) == out.map(\.id))
    }

    @Test func notifyStatusShowsWhatWaitsTheLastErrorAndTheNextAttempt() throws {
        let feed = NotifyFeed()
        let d = try Self.driver(feed: feed)
        _ = try d.submit()
        d.advance(0.5)
        let out = try #require(feed.parcels.take().first)
        feed.outcomes.post(.failed(id: out.id, receiver: Self.receiver, error: "connection refused"))
        d.advance(0.5)
        let reply = try d.request(.notifyStatus)
        guard case .notify(let report) = reply else { throw DriverError("notify status answered \(reply)") }
        #expect(report.signed)
        let receiver = try #require(report.receivers.first)
        #expect(report.receivers.count == 1)
        #expect(receiver.url == Self.receiver)
        #expect(receiver.waiting == 1)
        #expect(receiver.oldestWaitingAt != nil)
        #expect(receiver.failures == 1)
        #expect(receiver.lastError == "connection refused")
        #expect(receiver.nextAttemptAt != nil)
    }

    @Test func withoutASecretEventsGoUnsigned() throws {
        let feed = NotifyFeed()
        let d = try Self.driver(feed: feed, secret: nil)
        _ = try d.submit()
        d.advance(0.5)
        let parcels = feed.parcels.take()
        #expect(parcels.count == 1)
        #expect(parcels.first?.signature == nil)
    }

    @Test func theSignatureIsHMACSHA256OfTheBodyInHex() {
        // RFC 4231, test case 2.
        let value = NotifySignature.value(
            secret: Data("Jefe".utf8), body: Data("what do ya want for nothing?".utf8))
        #expect(value == "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func onlyHTTPReceiversAreAccepted() {
        #expect(NotifyOptions.isReceiverURL("https://hooks.example/stowage"))
        #expect(NotifyOptions.isReceiverURL("http://127.0.0.1:8080/"))
        #expect(!NotifyOptions.isReceiverURL("ftp://hooks.example/"))
        #expect(!NotifyOptions.isReceiverURL("/tmp/hook"))
    }
}
