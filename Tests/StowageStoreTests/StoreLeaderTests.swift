import Foundation
import StowageProtocol
import Testing

@testable import StowageStore

/// Two `Store`s over one SQLite file are two schedulers sharing a store: the leader row's claim, renewal, expiry,
/// and the write fence that keeps a deposed leader from changing anything.
@Suite("Store leader lease")
struct StoreLeaderTests {
    /// Two stores on a fresh file in a temporary folder (removed by `done`).
    static func pair() throws -> (Store, Store, done: () -> Void) {
        let dir = NSTemporaryDirectory() + "stowage-leader-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return (
            try Store(path: dir + "/s.sqlite"), try Store(path: dir + "/s.sqlite"),
            { try? FileManager.default.removeItem(atPath: dir) }
        )
    }

    func title(_ token: String) -> TitleRecord {
        TitleRecord(
            token: token, url: "http://h/\(token).m3u8", name: nil, state: .requested, priority: 0,
            selection: Selection(), headers: [], requestedAt: 1)
    }

    /// Waits (at most 5 s) until the lease of the row has run out on the database's clock.
    func waitUntilExpired(_ store: Store) throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while try store.leader()?.isHeld == true {
            guard ContinuousClock.now < deadline else { throw StoreError("the lease never ran out") }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    struct StoreError: Error {
        let message: String
        init(_ m: String) { message = m }
    }

    @Test func oneClaimWinsATermAndTheOtherWaitsForItsLeaseToRunOut() throws {
        let (a, b, done) = try Self.pair()
        defer { done() }
        #expect(try a.leader()?.isHeld == false && a.leader()?.term == 0)
        let first = try #require(
            try a.claimLeadership(holder: "a", endpoints: ["tcp://a:1"], since: 10, leaseSeconds: 0.5))
        #expect(first == 1)
        #expect(try b.claimLeadership(holder: "b", endpoints: [], since: 11, leaseSeconds: 0.5) == nil)
        let seen = try #require(try b.leader())
        #expect(seen.isHeld && seen.holder == "a" && seen.endpoints == ["tcp://a:1"] && seen.since == 10)
        #expect(seen.leaseUntil - seen.now <= 0.5 && seen.leaseUntil - seen.now > 0)
        // Renewing is fenced by term and holder: only a's renewal of term 1 counts.
        #expect(try a.renewLeadership(term: first, holder: "a", leaseSeconds: 0.5))
        #expect(try !b.renewLeadership(term: first, holder: "b", leaseSeconds: 60))
        #expect(try !a.renewLeadership(term: first + 1, holder: "a", leaseSeconds: 60))
        try waitUntilExpired(b)
        let second = try #require(try b.claimLeadership(holder: "b", endpoints: [], since: 12, leaseSeconds: 60))
        #expect(second == first + 1)
        #expect(try !a.renewLeadership(term: first, holder: "a", leaseSeconds: 60))  // too late: b leads
        #expect(try a.leader()?.holder == "b")
    }

    @Test func aDeposedStoresWritesAreRefusedAndNothingIsWritten() throws {
        let (a, b, done) = try Self.pair()
        defer { done() }
        let term = try #require(try a.claimLeadership(holder: "a", endpoints: [], since: 1, leaseSeconds: 60))
        let fence = LeaderFence(term: term)
        a.writeFence = fence
        try a.insert(title("before"))  // our term: written
        try a.batch { try? a.insert(title("batched")) }
        #expect(try b.title("before") != nil && b.title("batched") != nil)

        try a.releaseLeadership(term: term, holder: "a")
        let next = try #require(try b.claimLeadership(holder: "b", endpoints: [], since: 2, leaseSeconds: 60))
        #expect(throws: LeaderDeposed(ourTerm: term, currentTerm: next)) { try a.insert(title("plain")) }
        #expect(fence.takeRefusal() == LeaderDeposed(ourTerm: term, currentTerm: next))
        var ran = false
        #expect(throws: LeaderDeposed.self) {
            try a.batch {
                ran = true
                try? a.insert(title("in-batch"))
            }
        }
        #expect(!ran)  // refused before anything in the batch runs
        var moved = try #require(try a.title("before"))
        moved.state = .canceled
        #expect(throws: LeaderDeposed.self) { try a.update(moved) }
        #expect(throws: LeaderDeposed.self) { try a.delete(token: "before") }
        // Nothing of it reached the file.
        #expect(try b.title("plain") == nil && b.title("in-batch") == nil)
        #expect(try b.title("before")?.state == .requested)
        #expect(try b.titles().map(\.token).sorted() == ["batched", "before"])
        let message = LeaderDeposed(ourTerm: 1, currentTerm: 2).description
        #expect(message.contains("term 1") && message.contains("term 2") && message.contains("[deposed]"))
    }

    @Test func aLeaseHeldByAGoneHolderIsTakenAtOnceAndNoOtherIs() throws {
        let (a, b, done) = try Self.pair()
        defer { done() }
        let first = try #require(try a.claimLeadership(holder: "a", endpoints: [], since: 1, leaseSeconds: 60))
        #expect(try b.claimLeadership(holder: "b", endpoints: [], since: 2, leaseSeconds: 60, gone: "c") == nil)
        #expect(try b.claimLeadership(holder: "b", endpoints: [], since: 2, leaseSeconds: 60, gone: "a") == first + 1)
        #expect(try a.leader()?.holder == "b")
    }

    @Test func aStoreWithoutAFenceWritesAsBefore() throws {
        let (a, b, done) = try Self.pair()
        defer { done() }
        _ = try b.claimLeadership(holder: "b", endpoints: [], since: 1, leaseSeconds: 60)
        try a.insert(title("free"))  // the embedded store of in-process use: no election, no fence
        #expect(try b.title("free") != nil)
    }
}
