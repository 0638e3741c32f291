import StowageProtocol
import Testing

@testable import StowageSchedulerCore

@Suite("Retry queue")
struct RetryQueueTests {
    func fetch(_ token: String, _ id: Int64) -> WorkItem { WorkItem(token: token, kind: .fetch(resource: id)) }

    @Test func dueItemsComeOutEarliestFirstAndOnlyOnce() {
        var q = RetryQueue()
        q.schedule(fetch("a", 1), at: 5)
        q.schedule(fetch("a", 2), at: 2)
        q.schedule(fetch("b", 3), at: 9)
        q.schedule(fetch("a", 4), at: 2)
        #expect(q.count == 4)
        #expect(q.due(now: 1).isEmpty)
        #expect(q.due(now: 5) == [fetch("a", 2), fetch("a", 4), fetch("a", 1)], "same due time: scheduling order")
        #expect(q.due(now: 5).isEmpty)
        #expect(q.due(now: 100) == [fetch("b", 3)])
        #expect(q.isEmpty)
    }

    @Test func manyRetriesInAnyOrderStaySorted() {
        var q = RetryQueue()
        let dues = (0..<500).map { Double(($0 * 7919) % 500) }
        for (i, due) in dues.enumerated() { q.schedule(fetch("a", Int64(i)), at: due) }
        let out = q.due(now: 1_000)
        #expect(out.count == 500)
        let order = out.map { item -> Double in
            guard case .fetch(let id) = item.kind else { return -1 }
            return dues[Int(id)]
        }
        #expect(order == order.sorted())
    }

    @Test func attemptsAreCountedPerItemAndForgottenWithTheirTitle() {
        var q = RetryQueue()
        let resolve = WorkItem(token: "a", kind: .resolve)
        #expect(q.failed(resolve) == 1)
        #expect(q.failed(resolve) == 2)
        #expect(q.failed(WorkItem(token: "a", kind: .license)) == 1)
        #expect(q.failed(WorkItem(token: "b", kind: .resolve)) == 1)
        q.resetAttempts(resolve)
        #expect(q.failed(resolve) == 1)
        q.schedule(fetch("a", 1), at: 1)
        q.schedule(fetch("b", 2), at: 1)
        q.forget(token: "a")
        #expect(q.due(now: 2) == [fetch("b", 2)])
        #expect(q.attempts == [WorkItem(token: "b", kind: .resolve): 1])
    }

    @Test func backoffDoublesUpToThirtySeconds() {
        #expect((1...8).map { RetryQueue.backoff(attempt: $0, jitter: 1) } == [0.5, 1, 2, 4, 8, 16, 30, 30])
        #expect(RetryQueue.backoff(attempt: 0, jitter: 1) == 0.5)
        let jittered = RetryQueue.backoff(attempt: 3)
        #expect(jittered >= 1.5 && jittered <= 2.5)
    }
}
