import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageSchedulerService
import Testing

/// Play reports with an id, applied once (issue #45: a gateway sends a report again until a leader acknowledges
/// it): `played` sent twice with one `reportID` adds its seconds once; `play` / `playOn` asked twice with one
/// `playID` count one play, and the repeat is answered as a play under way (the last play allowed stays allowed).
@Suite struct PlayReceiptsServiceTests {
    @Test func aPlayedReportSentAgainIsCountedOnce() throws {
        let d = try ServiceDriver()
        let token = try d.submit()
        for _ in 0..<2 {
            guard case .ok = try d.request(.played(token: token, seconds: 4, reportID: "gw-r1")) else {
                throw DriverError("played refused")
            }
        }
        #expect(try d.store.title(token)?.playedSeconds == 4, "one id, counted once")
        _ = try d.request(.played(token: token, seconds: 3, reportID: "gw-r2"))
        _ = try d.request(.played(token: token, seconds: 1))
        _ = try d.request(.played(token: token, seconds: 1))
        #expect(try d.store.title(token)?.playedSeconds == 9, "another id, and reports without one, all count")
        #expect(try d.store.playReceiptCount() == 2)
        // A refused report keeps no receipt: once the title exists again it would count (here: out of range).
        guard case .error = try d.request(.played(token: token, seconds: -1, reportID: "gw-r3")) else {
            throw DriverError("-1 s accepted")
        }
        #expect(try !d.store.hasPlayReceipt("gw-r3"))
    }

    @Test func aPlayAskedAgainWithItsIdCountsOnceAndTheLastPlayStaysAllowed() throws {
        let d = try ServiceDriver()
        let token = try PlaybackComponentServiceTests.completed(
            d, terms: GrantedTerms(kind: .purchase, requestedAt: d.clock.now(), playCount: 2))
        guard case .deviceSecret = try d.request(.deviceAdd(name: "tv")) else { throw DriverError("no device") }
        let first = try PlaybackComponentServiceTests.verdict(d, .playOn(token: token, device: "tv", playID: "p1"))
        let again = try PlaybackComponentServiceTests.verdict(d, .playOn(token: token, device: "tv", playID: "p1"))
        #expect(first.playable && again.playable && again.directory == first.directory)
        #expect(try d.store.title(token)?.playCount == 1, "one play id, one play")
        // The second (last) play: asked again after its answer was lost, it is still allowed, and not counted.
        #expect(try PlaybackComponentServiceTests.verdict(d, .play(token: token, playID: "p2")).playable)
        let repeated = try PlaybackComponentServiceTests.verdict(d, .play(token: token, playID: "p2"))
        #expect(repeated.playable, "the last play, repeated: \(repeated.reason ?? "")")
        #expect(try d.store.title(token)?.playCount == 2)
        let third = try PlaybackComponentServiceTests.verdict(d, .play(token: token, playID: "p3"))
        #expect(!third.playable && third.notPlayable?.code == .licenseUsedUp, "a new play is refused")
        #expect(try !d.store.hasPlayReceipt("p3"), "a refused play keeps no receipt")
    }

    @Test func receiptsOlderThanAWeekArePruned() throws {
        let d = try ServiceDriver()
        let token = try d.submit()
        _ = try d.request(.played(token: token, seconds: 1, reportID: "old"))
        d.advance(8 * 86_400)
        _ = try d.request(.played(token: token, seconds: 1, reportID: "new"))
        #expect(try !d.store.hasPlayReceipt("old") && d.store.hasPlayReceipt("new"))
    }
}
