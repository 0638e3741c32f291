import StowageProtocol
import StowageSchedulerCore
import Testing

/// `--notify`'s decision of what goes out next: order per title, receivers independent, backoff.
@Suite struct NotifyOutboxTests {
    static let a = "http://a.test/hook"
    static let b = "http://b.test/hook"

    static func row(_ id: Int64, _ subject: String, _ receiver: String = a) -> NotifyWaiting {
        NotifyWaiting(id: id, receiver: receiver, subject: subject)
    }

    @Test func onlyTheOldestEventOfATitleGoesAndTheNextAfterItWasDelivered() {
        var outbox = NotifyOutbox(maxInFlightPerReceiver: 8, backoff: Backoff(base: 1, cap: 30))
        let waiting = [Self.row(1, "t1"), Self.row(2, "t1"), Self.row(3, "t2"), Self.row(4, "t1")]
        #expect(outbox.next(waiting: waiting, now: 0).map(\.id) == [1, 3])
        // Nothing new while both are out.
        #expect(outbox.next(waiting: waiting, now: 0).isEmpty)
        outbox.delivered(1, receiver: Self.a, wallNow: 100)
        #expect(outbox.next(waiting: Array(waiting.dropFirst()), now: 0).map(\.id) == [2])
    }

    @Test func eachReceiverHasItsOwnOrderAndItsOwnBackoff() {
        var outbox = NotifyOutbox(backoff: Backoff(base: 2, cap: 30))
        let waiting = [Self.row(1, "t1", Self.a), Self.row(2, "t1", Self.b), Self.row(3, "t1", Self.a)]
        #expect(outbox.next(waiting: waiting, now: 0).map(\.id) == [1, 2])
        #expect(outbox.failed(1, receiver: Self.a, error: "connection refused", now: 0) == 2)
        outbox.delivered(2, receiver: Self.b, wallNow: 5)
        let left = [Self.row(1, "t1", Self.a), Self.row(3, "t1", Self.a)]
        // a waits out its backoff; then it gets event 1 again, not 3: the order holds across the failure.
        #expect(outbox.next(waiting: left, now: 1.9).isEmpty)
        #expect(outbox.next(waiting: left, now: 2).map(\.id) == [1])
        #expect(outbox.receivers[Self.a]?.lastError == "connection refused")
        #expect(outbox.receivers[Self.b]?.lastDeliveredAt == 5)
    }

    @Test func failuresDoubleTheWaitUpToTheCapAndADeliveryResetsIt() {
        var outbox = NotifyOutbox(backoff: Backoff(base: 1, cap: 4))
        var waits: [Double] = []
        var now = 0.0
        for _ in 0..<5 {
            let out = outbox.next(waiting: [Self.row(1, "t")], now: now)
            #expect(out.map(\.id) == [1])
            let wait = outbox.failed(1, receiver: Self.a, error: "503", now: now)
            waits.append(wait)
            now += wait
        }
        #expect(waits == [1, 2, 4, 4, 4])
        _ = outbox.next(waiting: [Self.row(1, "t")], now: now)
        outbox.delivered(1, receiver: Self.a, wallNow: now)
        #expect(outbox.receivers[Self.a]?.failures == 0)
        #expect(outbox.next(waiting: [Self.row(2, "t")], now: now).map(\.id) == [2])
    }

    @Test func eventsOutTogetherThatFailCountAsOneFailure() {
        var outbox = NotifyOutbox(maxInFlightPerReceiver: 8, backoff: Backoff(base: 1, cap: 30))
        _ = outbox.next(waiting: [Self.row(1, "t1"), Self.row(2, "t2")], now: 0)
        #expect(outbox.failed(1, receiver: Self.a, error: "down", now: 0) == 1)
        #expect(outbox.failed(2, receiver: Self.a, error: "down", now: 0.1) == 0.9)
        #expect(outbox.receivers[Self.a]?.failures == 1)
    }

    /// One slow receiver holds one delivery slot, whatever it does: its next event goes when that one ended.
    @Test func byDefaultAReceiverHasOneEventOutAndOtherReceiversTheirOwn() {
        var outbox = NotifyOutbox()
        let waiting = [Self.row(1, "t1"), Self.row(2, "t2"), Self.row(3, "t1", Self.b), Self.row(4, "t2", Self.b)]
        #expect(outbox.next(waiting: waiting, now: 0).map(\.id) == [1, 3])
        #expect(outbox.next(waiting: waiting, now: 0).isEmpty)
        outbox.failed(1, receiver: Self.a, error: "cut", now: 0)
        outbox.delivered(3, receiver: Self.b, wallNow: 0)
        #expect(
            outbox.next(waiting: [Self.row(1, "t1"), Self.row(2, "t2"), Self.row(4, "t2", Self.b)], now: 0)
                .map(\.id) == [4], "a waits out its backoff; b goes on")
    }

    @Test func aReceiverHasAtMostItsCapOut() {
        var outbox = NotifyOutbox(maxInFlightPerReceiver: 2)
        let waiting = (1...5).map { Self.row(Int64($0), "t\($0)") }
        #expect(outbox.next(waiting: waiting, now: 0).map(\.id) == [1, 2])
        outbox.delivered(1, receiver: Self.a, wallNow: 0)
        #expect(outbox.next(waiting: Array(waiting.dropFirst()), now: 0).map(\.id) == [3])
    }
}

@Suite struct NotifyExpiryTests {
    @Test func aLicenseIsDueOnceItEntersTheWindowAndOncePerEnd() {
        #expect(!NotifyOutbox.expiryDue(end: 10_000, now: 0, ahead: 3_600, announced: nil))
        #expect(NotifyOutbox.expiryDue(end: 3_600, now: 0, ahead: 3_600, announced: nil))
        #expect(!NotifyOutbox.expiryDue(end: 3_600, now: 0, ahead: 3_600, announced: 3_600))
        // Renewed: a new end is a new term.
        #expect(NotifyOutbox.expiryDue(end: 3_000, now: 0, ahead: 3_600, announced: 3_600))
        // Already ended: nothing to announce ahead of it.
        #expect(!NotifyOutbox.expiryDue(end: 3_600, now: 3_600, ahead: 3_600, announced: nil))
    }
}
