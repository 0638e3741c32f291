import Foundation
import StowageProtocol
import Testing

@testable import StowageSchedulerCore

@Suite("Scheduler core lanes")
struct SchedulerLaneTests {
    func core(perTitle: Int) -> SchedulerCore {
        var c = SchedulerCore(
            limits: Limits(titlesAtOnce: 1, perTitle: perTitle, perHost: 1_000), workerTimeout: 100,
            idPrefix: "r")
        c.register(id: "d1", info: Register(kind: .download, capacity: 1_000, host: "h", pid: 1), now: 0)
        c.addTitle("a", priority: 0, requestedAt: 0)
        return c
    }

    func ids(_ leases: [Lease]) -> [Int64] {
        leases.compactMap { if case .fetch(let id) = $0.item.kind { id } else { nil } }
    }

    @Test func workGoesOutInQueueOrderAndTheFrontGoesFirst() {
        var c = core(perTitle: 2)
        for id in 1...4 { c.enqueue(WorkItem(token: "a", kind: .fetch(resource: Int64(id)))) }
        let first = c.assign(now: 0)
        #expect(ids(first) == [1, 2])
        // Front insertions go before what is queued, the latest first (callers insert in reverse order).
        c.enqueue(WorkItem(token: "a", kind: .fetch(resource: 10)), front: true)
        c.enqueue(WorkItem(token: "a", kind: .fetch(resource: 9)), front: true)
        for l in first { _ = c.complete(taskID: l.taskID, from: "d1") }
        #expect(ids(c.assign(now: 1)) == [9, 10])
        #expect(c.queueDepths["fetch"] == 2)
    }

    @Test func revokedWorkGoesBackToTheFront() {
        var c = core(perTitle: 1)
        for id in 1...3 { c.enqueue(WorkItem(token: "a", kind: .fetch(resource: Int64(id)))) }
        c.setFetchBatch("a", 1)  // one file per lease (batches: FetchBatchTests)
        #expect(ids(c.assign(now: 0)) == [1])
        #expect(c.removeWorker("d1").count == 1)
        c.register(id: "d2", info: Register(kind: .download, capacity: 10, host: "h", pid: 2), now: 0)
        #expect(ids(c.assign(now: 0)) == [1])
    }

    @Test func workForAnUnknownTitleIsDropped() {
        var c = core(perTitle: 5)
        c.enqueue(WorkItem(token: "nobody", kind: .fetch(resource: 1)))
        c.enqueue(WorkItem(token: "nobody", kind: .fetch(resource: 2)), front: true)
        #expect(c.assign(now: 0).isEmpty)
        #expect(!c.hasWork("nobody"))
    }

    /// A title of many files: queueing and draining them must not copy the lane per item (a copy per enqueue
    /// or per hand-out makes this quadratic: minutes instead of well under a second).
    @Test func largeLanesQueueAndDrainInPlace() {
        var c = core(perTitle: 1_000)
        let n = 100_000
        let start = Date()
        for id in 0..<n { c.enqueue(WorkItem(token: "a", kind: .fetch(resource: Int64(id)))) }
        for id in 0..<1_000 { c.enqueue(WorkItem(token: "a", kind: .fetch(resource: Int64(n + id))), front: true) }
        var handedOut = 0
        while true {
            let leases = c.assign(now: 0)
            if leases.isEmpty { break }
            handedOut += leases.reduce(0) { $0 + $1.items.count }
            for l in leases { _ = c.complete(taskID: l.taskID, from: "d1") }
        }
        #expect(handedOut == n + 1_000)
        #expect(!c.hasWork("a"))
        #expect(Date().timeIntervalSince(start) < 30)
    }
}
