import StowageProtocol
import Testing

@testable import StowageSchedulerCore

@Suite("Scheduler core")
struct SchedulerCoreTests {
    func worker(_ kind: WorkerKind, capacity: Int = 4) -> Register {
        Register(kind: kind, capacity: capacity, host: "h", pid: 1)
    }

    func core(titles: Int = 2, perTitle: Int = 2) -> SchedulerCore {
        SchedulerCore(limits: Limits(titlesAtOnce: titles, perTitle: perTitle), workerTimeout: 3, idPrefix: "run1")
    }

    @Test func respectsPerTitleAndTitlesAtOnce() {
        var c = core(titles: 2, perTitle: 2)
        c.register(id: "d1", info: worker(.download, capacity: 100), now: 0)
        for (i, token) in ["a", "b", "c"].enumerated() {
            c.addTitle(token, priority: 0, requestedAt: Double(i))
            for r in 0..<5 { c.enqueue(WorkItem(token: token, kind: .fetch(resource: Int64(i * 10 + r)))) }
        }
        let leases = c.assign(now: 1)
        #expect(leases.count == 4)
        #expect(Set(leases.map(\.item.token)) == ["a", "b"])
        #expect(c.assign(now: 1).isEmpty)
        // Finishing one lease frees exactly one per-title slot.
        #expect(c.complete(taskID: leases[0].taskID, from: "d1") != nil)
        let next = c.assign(now: 2)
        #expect(next.count == 1 && next[0].item.token == leases[0].item.token)
    }

    @Test func titlesWaitingForASlotAreQueuedInTheOrderTheyWillGetOne() {
        var c = core(titles: 1, perTitle: 1)
        c.register(id: "d1", info: worker(.download), now: 0)
        c.addTitle("first", priority: 0, requestedAt: 1)
        c.addTitle("second", priority: 0, requestedAt: 2)
        c.addTitle("urgent", priority: 9, requestedAt: 3)
        c.addTitle("licensing", priority: 0, requestedAt: 0)
        c.enqueue(WorkItem(token: "licensing", kind: .license))
        for (i, t) in ["first", "second", "urgent"].enumerated() {
            c.enqueue(WorkItem(token: t, kind: .fetch(resource: Int64(i))))
        }
        #expect(c.slotQueue() == ["urgent", "first", "second"], "license work needs no slot")
        #expect(c.assign(now: 1).map(\.item.token) == ["urgent"])
        #expect(c.slotQueue() == ["first", "second"], "the title holding the slot left the queue")
    }

    @Test func priorityThenRequestTime() {
        var c = core(titles: 1, perTitle: 1)
        c.register(id: "d1", info: worker(.download), now: 0)
        c.addTitle("old", priority: 0, requestedAt: 1)
        c.addTitle("urgent", priority: 5, requestedAt: 2)
        c.enqueue(WorkItem(token: "old", kind: .fetch(resource: 1)))
        c.enqueue(WorkItem(token: "urgent", kind: .fetch(resource: 2)))
        #expect(c.assign(now: 3).map(\.item.token) == ["urgent"])
    }

    @Test func deadWorkerLosesLeasesAndLateResultsAreIgnored() {
        var c = core()
        c.register(id: "d1", info: worker(.download), now: 0)
        c.addTitle("a", priority: 0, requestedAt: 0)
        c.enqueue(WorkItem(token: "a", kind: .fetch(resource: 1)))
        let first = c.assign(now: 0)
        #expect(first.count == 1)
        c.register(id: "d2", info: worker(.download), now: 2)
        _ = c.touch("d2", now: 4)
        let (dead, requeued) = c.expire(now: 4)
        #expect(dead == ["d1"])
        #expect(requeued == [first[0].item])
        let second = c.assign(now: 4)
        #expect(second.count == 1 && second[0].worker == "d2")
        #expect(second[0].taskID != first[0].taskID)
        // The old worker's result arrives late: stale, ignored.
        #expect(c.complete(taskID: first[0].taskID, from: "d1") == nil)
        // A result from a worker that does not hold the lease is ignored too.
        #expect(c.complete(taskID: second[0].taskID, from: "d1") == nil)
        #expect(c.complete(taskID: second[0].taskID, from: "d2") != nil)
    }

    @Test func expiredLeaseIsReissued() {
        var c = core()
        c.timeouts.fetch = 10
        c.register(id: "d1", info: worker(.download), now: 0)
        c.addTitle("a", priority: 0, requestedAt: 0)
        c.enqueue(WorkItem(token: "a", kind: .fetch(resource: 1)))
        let lease = c.assign(now: 0)[0]
        for t in stride(from: 1.0, through: 11, by: 1) { _ = c.touch("d1", now: t) }
        let (_, requeued) = c.expire(now: 11)
        #expect(requeued == [lease.item])
        #expect(c.assign(now: 11).count == 1)
    }

    @Test func workGoesOnlyToItsKind() {
        var c = core()
        c.register(id: "l1", info: worker(.license), now: 0)
        c.addTitle("a", priority: 0, requestedAt: 0)
        c.enqueue(WorkItem(token: "a", kind: .resolve))
        c.enqueue(WorkItem(token: "a", kind: .license))
        let leases = c.assign(now: 0)
        #expect(leases.map(\.item.kind) == [.license])
        c.register(id: "d1", info: worker(.download), now: 0)
        #expect(c.assign(now: 0).map(\.item.kind) == [.resolve])
    }

    @Test func droppingATitleReturnsLeasesAndFreesItsSlot() {
        var c = core(titles: 1, perTitle: 4)
        c.register(id: "d1", info: worker(.download, capacity: 10), now: 0)
        c.addTitle("a", priority: 0, requestedAt: 0)
        c.addTitle("b", priority: 0, requestedAt: 1)
        c.enqueue(WorkItem(token: "a", kind: .fetch(resource: 1)))
        c.enqueue(WorkItem(token: "b", kind: .fetch(resource: 2)))
        #expect(c.assign(now: 0).map(\.item.token) == ["a"])
        #expect(c.dropTitle("a").count == 1)
        #expect(c.assign(now: 1).map(\.item.token) == ["b"])
    }

    @Test func capacityIsRespected() {
        var c = core(titles: 5, perTitle: 50)
        c.register(id: "d1", info: worker(.download, capacity: 3), now: 0)
        c.addTitle("a", priority: 0, requestedAt: 0)
        for r in 0..<10 { c.enqueue(WorkItem(token: "a", kind: .fetch(resource: Int64(r)))) }
        #expect(c.assign(now: 0).count == 3)
    }
}

@Suite("Disk ledger")
struct DiskLedgerTests {
    @Test func countsPromisedSpaceAndCushion() {
        let ledger = DiskLedger(cushion: 100)
        #expect(ledger.refusal(need: 500, free: 1_000, others: []) == nil)
        let others = [
            DiskLedger.Reservation(estimate: 400, stored: 100),
            DiskLedger.Reservation(estimate: 50, stored: 80),
        ]
        // 500 + 300 outstanding + 100 cushion = 900 ≤ 1000.
        #expect(ledger.refusal(need: 500, free: 1_000, others: others) == nil)
        let refusal = ledger.refusal(need: 700, free: 1_000, others: others)
        #expect(refusal?.contains("300 B of it promised to 1 title(s)") == true)
        #expect(refusal?.contains("--disk-cushion") == true)
    }
}

@Suite("Per-host and license limits")
struct HostLimitTests {
    @Test func perHostLimitHoldsAcrossWorkersAndTitles() {
        var c = SchedulerCore(
            limits: Limits(titlesAtOnce: 5, perTitle: 10, perHost: 3), workerTimeout: 3,
            idPrefix: "r")
        c.register(id: "d1", info: Register(kind: .download, capacity: 10, host: "h", pid: 1), now: 0)
        c.register(id: "d2", info: Register(kind: .download, capacity: 10, host: "h", pid: 2), now: 0)
        for (i, token) in ["a", "b"].enumerated() {
            c.addTitle(token, priority: 0, requestedAt: Double(i))
            for r in 0..<5 {
                c.enqueue(WorkItem(token: token, kind: .fetch(resource: Int64(i * 10 + r)), host: "cdn.test"))
            }
        }
        c.addTitle("other", priority: 0, requestedAt: 5)
        c.enqueue(WorkItem(token: "other", kind: .fetch(resource: 99), host: "elsewhere.test"))
        let leases = c.assign(now: 0)
        #expect(leases.filter { $0.item.host == "cdn.test" }.count == 3)
        #expect(leases.filter { $0.item.host == "elsewhere.test" }.count == 1)
        #expect(c.hostInFlight["cdn.test"] == 3)
        _ = c.complete(taskID: leases[0].taskID, from: leases[0].worker)
        #expect(c.assign(now: 1).count == 1)
    }

    @Test func slowDownPausesThenHalvesTheHost() {
        var c = SchedulerCore(
            limits: Limits(titlesAtOnce: 5, perTitle: 10, perHost: 8), workerTimeout: 100,
            idPrefix: "r")
        c.register(id: "d1", info: Register(kind: .download, capacity: 50, host: "h", pid: 1), now: 0)
        c.addTitle("a", priority: 0, requestedAt: 0)
        for r in 0..<20 { c.enqueue(WorkItem(token: "a", kind: .fetch(resource: Int64(r)), host: "cdn.test")) }
        let first = c.assign(now: 0)
        #expect(first.count == 8)
        for l in first { _ = c.complete(taskID: l.taskID, from: "d1") }
        c.slowDown(host: "cdn.test", resumeAt: 10, recoverAt: 40)
        // The host's limit was 8 with 1 in flight at most when throttled; nothing goes out before resumeAt.
        #expect(c.assign(now: 5).isEmpty)
        let later = c.assign(now: 11)
        #expect(later.count >= 1 && later.count < 8)
        for l in later { _ = c.complete(taskID: l.taskID, from: "d1") }
        #expect(c.assign(now: 41).count == 8, "back to the full limit after recovery")
    }

    @Test func licenseRequestsAtOnce() {
        var c = SchedulerCore(limits: Limits(licenses: 2), workerTimeout: 3, idPrefix: "r")
        c.register(id: "l1", info: Register(kind: .license, capacity: 10, host: "h", pid: 1), now: 0)
        for t in 0..<5 {
            c.addTitle("t\(t)", priority: 0, requestedAt: Double(t))
            c.enqueue(WorkItem(token: "t\(t)", kind: .license))
        }
        #expect(c.assign(now: 0).count == 2)
    }
}

@Suite("Connection model")
struct ConnectionModelTests {
    @Test func idleConnectionsCountUntilTheyTimeOut() {
        var m = ConnectionModel(idleSeconds: 1.5)
        m.start(host: "h", process: "a", now: 0)
        m.start(host: "h", process: "b", now: 0)
        #expect(!m.allows(host: "h", process: "c", limit: 2, now: 0))
        m.finish(host: "h", process: "a", now: 1)
        // a's connection is idle but open: c may not open a third, a may reuse its own.
        #expect(!m.allows(host: "h", process: "c", limit: 2, now: 2))
        #expect(m.allows(host: "h", process: "a", limit: 2, now: 2))
        #expect(m.open(host: "h", now: 2) == 2)
        // After the idle timeout it is closed.
        #expect(m.allows(host: "h", process: "c", limit: 2, now: 2.6))
        #expect(m.open(host: "h", now: 2.6) == 1)
    }

    @Test func afterARestartHostWorkWaitsOnlyForWorkersThatMayHoldConnections() {
        var c = SchedulerCore(limits: Limits(titlesAtOnce: 5, perTitle: 10, perHost: 4), idPrefix: "r")
        c.holdHostWorkUntil = 1.5
        c.unfinishedAtStart = false
        c.register(
            id: "fresh", info: Register(kind: .download, capacity: 5, host: "x", pid: 1, mayHoldConnections: false),
            now: 0)
        c.addTitle("a", priority: 0, requestedAt: 0)
        for r in 0..<6 { c.enqueue(WorkItem(token: "a", kind: .fetch(resource: Int64(r)), host: "cdn")) }
        // Everything started afresh: no connection of an earlier run can exist.
        #expect(c.assign(now: 0.1).count == 4)
        // A worker that ran tasks before (or one too old to say) re-registers: host work waits out the period.
        c.register(id: "old", info: Register(kind: .download, capacity: 5, host: "x", pid: 2), now: 0.2)
        for l in c.leases.values { _ = c.complete(taskID: l.taskID, from: l.worker) }
        #expect(c.assign(now: 0.3).isEmpty)
        #expect(!c.assign(now: 1.6).isEmpty)
    }

    @Test func afterARestartWithWorkUnderWayEvenAFreshWorkerWaits() {
        var c = SchedulerCore(limits: Limits(titlesAtOnce: 5, perTitle: 10, perHost: 4), idPrefix: "r")
        c.holdHostWorkUntil = 1.5
        c.unfinishedAtStart = true  // workers of the previous run may not have registered again yet
        c.register(
            id: "fresh", info: Register(kind: .download, capacity: 5, host: "x", pid: 1, mayHoldConnections: false),
            now: 0)
        c.addTitle("a", priority: 0, requestedAt: 0)
        c.enqueue(WorkItem(token: "a", kind: .fetch(resource: 1), host: "cdn"))
        #expect(c.assign(now: 0.1).isEmpty)
        #expect(c.assign(now: 1.6).count == 1)
    }

    @Test func coreRoutesWorkWithinTheConnectionLimit() {
        var c = SchedulerCore(
            limits: Limits(titlesAtOnce: 5, perTitle: 10, perHost: 2), workerTimeout: 100,
            idPrefix: "r")
        c.register(id: "w1", info: Register(kind: .download, capacity: 5, host: "x", pid: 1), now: 0)
        c.register(id: "w2", info: Register(kind: .download, capacity: 5, host: "x", pid: 2), now: 0)
        c.addTitle("a", priority: 0, requestedAt: 0)
        for r in 0..<6 { c.enqueue(WorkItem(token: "a", kind: .fetch(resource: Int64(r)), host: "cdn")) }
        let first = c.assign(now: 0)
        #expect(first.count == 2)
        for l in first { _ = c.complete(taskID: l.taskID, from: l.worker) }
        // Both connections are idle and reusable by their own processes: two more, never a third connection.
        let second = c.assign(now: 0.5)
        #expect(second.count == 2)
        #expect(c.connections.open(host: "cdn", now: 0.5) == 2)
    }

    /// A peer box gets at most half a worker's task slots: titles from that peer queue behind each other, and
    /// another host's title still finds the worker's other slots free while the peer's are held (a drip).
    @Test func aPeerHostGetsAtMostHalfOfAWorkersSlots() {
        var c = SchedulerCore(limits: Limits(titlesAtOnce: 5, perTitle: 10, perHost: 8), idPrefix: "r")
        c.limits.fetchBatch = 1
        c.register(id: "d1", info: Register(kind: .download, capacity: 8, host: "h", pid: 1), now: 0)
        c.peerHosts = ["box-a.test"]
        for (i, token) in ["p1", "p2"].enumerated() {
            c.addTitle(token, priority: 5, requestedAt: Double(i))
            for r in 0..<6 {
                c.enqueue(WorkItem(token: token, kind: .fetch(resource: Int64(i * 10 + r)), host: "box-a.test"))
            }
        }
        c.addTitle("origin", priority: 0, requestedAt: 5)
        for r in 0..<6 { c.enqueue(WorkItem(token: "origin", kind: .fetch(resource: Int64(100 + r)), host: "cdn")) }
        let leases = c.assign(now: 100)
        #expect(SchedulerCore.peerShare(capacity: 8) == 4)
        #expect(leases.filter { $0.item.host == "box-a.test" }.count == 4, "\(leases.map(\.item))")
        #expect(leases.filter { $0.item.host == "cdn" }.count == 4, "the other half for the origin's title")
        #expect(c.assign(now: 100).isEmpty)
        let peerLease = leases.first { $0.item.host == "box-a.test" }!
        _ = c.complete(taskID: peerLease.taskID, from: "d1")
        #expect(c.assign(now: 101).map(\.item.host) == ["box-a.test"], "a freed peer slot goes to the peer again")
    }
}
