import Foundation
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageSchedulerService
import Testing

/// Plays through the service: the gateway's `played` reports, the operations that are signs of a play, and what a
/// play keeps from the quota and the catalogue (a title being watched, and every title just after a start).
@Suite struct PlaysServiceTests {
    @Test func playedAddsPlayTimeAndLastPlayedAtAndRefusesWhatCannotBe() throws {
        let d = try ServiceDriver()
        let token = try d.submit()
        #expect(try d.status(token).lastPlayedAt == nil, "never played")
        d.advance(1)
        guard case .ok = try d.request(.played(token: token, seconds: 4)) else { throw DriverError("played refused") }
        #expect(try d.store.title(token)?.playedSeconds == 4)
        #expect(try d.status(token).lastPlayedAt == iso8601(d.clock.now()))
        for seconds in [-1, 86_400.0] {
            guard case .error(let error) = try d.request(.played(token: token, seconds: seconds)) else {
                throw DriverError("played \(seconds) s accepted")
            }
            #expect(error.code == .refused && error.message == "played seconds out of range")
        }
        guard case .error(let unknown) = try d.request(.played(token: "0000000000000000", seconds: 1)) else {
            throw DriverError("an unknown title's play accepted")
        }
        #expect(unknown.code == .notFound && unknown.message.contains("stowctl list"))
        #expect(try d.store.title(token)?.playedSeconds == 4, "a refused report adds nothing")
    }

    @Test func aKeyAskedForIsASignOfAPlayEvenWhenItIsRefused() throws {
        let quota = QuotaServiceTests()
        let d = try quota.driver(protect: 0)  // only a play under way protects
        let a = try quota.completed(d, "a")
        d.advance(10)
        let b = try quota.completed(d, "b")
        #expect(try quota.evictable(d) == [a, b], "a completed first, neither was played")
        // A device asks for a key of a: a clear title has none, but a device holding it is playing it.
        guard case .error = try d.request(.key(token: a, index: 0)) else { throw DriverError("a key was released") }
        #expect(try quota.evictable(d) == [b])
        let c = try quota.submitted(d, "c")
        #expect(try d.state(c) == .licensing)
        #expect(try d.store.title(b) == nil && d.state(a) == .completed)
    }

    @Test func justAfterAStartTheQuotaEvictsNothingThatMayBeBeingPlayed() throws {
        let quota = QuotaServiceTests()
        let d = try ServiceDriver {
            $0.quota = QuotaServiceTests.quota
            $0.evictProtect = 0
        }
        d.register("dl", .download)
        d.register("lic", .license)
        let (a, b) = (try quota.completed(d, "a"), try quota.completed(d, "b"))
        // Within the first seconds a play under way has not reported yet: every title may be being watched.
        let c = try quota.submitted(d, "c")
        #expect(try d.status(c).suspendedReason == .quota)
        #expect(try quota.evictable(d).isEmpty)
        d.advance(PlayActivity.startupBlindness + 1)  // every play under way has shown itself by now: none did
        #expect(try d.state(c) == .licensing)
        #expect(try [a, b].filter { try d.store.title($0) == nil }.count == 1, "one of them made room")
    }

    @Test func justAfterARestartTheCatalogueDeletesNothingThatMayBeBeingPlayed() throws {
        let d = try ServiceDriver { $0.catalog.grace = 10 }
        let catalogue = CatalogServiceTests()
        _ = try catalogue.apply(d, CatalogServiceTests.document(version: 1, ids: ["a", "b"]))
        let b = try #require(try d.store.title(externalID: "b")).token
        try d.restart()
        _ = try catalogue.apply(d, CatalogServiceTests.document(version: 2, ids: ["a"]))
        d.advance(11)  // the grace is over, but a play of b under way may not have reported since the restart
        #expect(try d.store.title(b) != nil)
        d.advance(PlayActivity.startupBlindness - 11 + 1)  // no play showed itself
        #expect(try d.store.title(b) == nil)
        #expect(try catalogue.report(d).entries.map(\.id) == ["a"])
    }
}
