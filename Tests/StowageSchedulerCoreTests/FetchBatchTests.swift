import StowageProtocol
import Testing

@testable import StowageSchedulerCore

@Suite("Fetch batches")
struct FetchBatchTests {
    func core(perTitle: Int, fetches: Int, hosts: (Int) -> String = { _ in "origin" }) -> SchedulerCore {
        var c = SchedulerCore(limits: Limits(titlesAtOnce: 1, perTitle: perTitle, perHost: 100), idPrefix: "r")
        c.register(id: "d1", info: Register(kind: .download, capacity: 100, host: "h", pid: 1), now: 0)
        c.addTitle("t", priority: 0, requestedAt: 0)
        for i in 0..<fetches {
            c.enqueue(WorkItem(token: "t", kind: .fetch(resource: Int64(i)), host: hosts(i)))
        }
        return c
    }

    func ids(_ lease: Lease) -> [Int64] {
        lease.items.compactMap { if case .fetch(let id) = $0.kind { id } else { nil } }
    }

    @Test func smallFilesGoOutInBatchesThatShrinkAsTheQueueDrains() {
        let cap = Limits().fetchBatch
        let total = 5 * cap
        var c = core(perTitle: 2, fetches: total)
        let leases = c.assign(now: 1)
        #expect(leases.count == 2, "a batch is one lease: the per-title limit counts leases")
        #expect(ids(leases[0]) == Array(0..<Int64(cap)), "in queue order, at most limits.fetchBatch")
        #expect(ids(leases[1]) == Array(Int64(cap)..<Int64(2 * cap)))
        #expect(leases[0].deadline > 600, "the deadline grows with the batch")
        var sizes: [Int] = []
        var out = leases
        while !out.isEmpty {
            for lease in out {
                sizes.append(lease.items.count)
                _ = c.complete(taskID: lease.taskID, from: "d1")
            }
            out = c.assign(now: 2)
        }
        #expect(sizes.reduce(0, +) == total)
        #expect(sizes.suffix(3).allSatisfy { $0 == 1 }, "the last files spread over the connections: \(sizes)")
    }

    @Test func aBatchKeepsToOneHostAndToTheTitlesCap() {
        var c = core(perTitle: 1, fetches: 40, hosts: { $0 < 5 ? "a" : "b" })
        #expect(ids(c.assign(now: 1)[0]) == Array(0..<5), "stops where the host changes")
        var capped = core(perTitle: 1, fetches: 40)
        capped.setFetchBatch("t", 3)
        #expect(ids(capped.assign(now: 1)[0]) == [0, 1, 2])
        var single = core(perTitle: 1, fetches: 40)
        single.setFetchBatch("t", 1)
        #expect(ids(single.assign(now: 1)[0]) == [0])
    }

    @Test func aDeadWorkersBatchGoesBackToTheFrontInOrder() {
        var c = core(perTitle: 1, fetches: 40)
        let first = c.assign(now: 1)
        #expect(first.count == 1 && first[0].items.count > 1)
        let requeued = c.removeWorker("d1")
        #expect(requeued.count == first[0].items.count)
        c.register(id: "d2", info: Register(kind: .download, capacity: 100, host: "h", pid: 2), now: 2)
        let again = c.assign(now: 2)
        #expect(ids(again[0]) == ids(first[0]), "the same files, in the same order, first")
        #expect(c.complete(taskID: first[0].taskID, from: "d1") == nil, "the old lease's result is stale")
    }
}
