import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore
import Testing

/// The service as the leader of a shared store: its tasks carry its term, and once another scheduler claims the
/// store its writes are fenced (nothing stored changes) and its stats say who leads.
@Suite struct LeaderServiceTests {
    @Test func tasksCarryTheTermAndADeposedLeaderChangesNothing() throws {
        let store = try Store()
        let term = try #require(
            try store.claimLeadership(holder: "a", endpoints: ["tcp://a:7700"], since: 1, leaseSeconds: 60))
        let fence = LeaderFence(term: term)
        store.writeFence = fence
        // One fetch out at a time: the title's other files wait in the queue.
        let d = try ServiceDriver(store: store, term: term) { $0.limitOverrides.perTitle = 1 }
        d.service.mayServe = { fence.refusal == nil }  // as the leader loop gates it (its lease aside)
        let token = try d.licensedTitle(files: 3)
        let fetch = try d.task(for: "dl")
        #expect(fetch.term == term)
        guard case .stats(let stats) = try d.request(.stats) else { throw DriverError("no stats") }
        #expect(stats.leader == LeaderFigures(holder: "a", term: term, since: 1, endpoints: ["tcp://a:7700"]))
        #expect(stats.leads == true)

        // Another scheduler takes the store over (the lease given up, then claimed).
        try store.releaseLeadership(term: term, holder: "a")
        let next = try #require(try store.claimLeadership(holder: "b", endpoints: [], since: 2, leaseSeconds: 60))
        #expect(next == term + 1)
        let before = try store.events(token: token).count
        try d.fetchedAll("dl", fetch)
        #expect(try d.state(token) == .downloading)  // the fetched file is not recorded by the deposed leader
        #expect(try store.events(token: token).count == before)
        #expect(fence.refusal == LeaderDeposed(ourTerm: term, currentTerm: next))
        // The next file would go out now (the slot is free again), but a fenced term hands nothing out.
        d.advance(1)
        #expect(try d.tasks(for: "dl").isEmpty)
        d.advance(601)
        #expect(try d.tasks(for: "dl").isEmpty)
        guard case .stats(let later) = try d.request(.stats) else { throw DriverError("no stats") }
        #expect(later.leads == false && later.leader?.holder == "b")
    }
}
