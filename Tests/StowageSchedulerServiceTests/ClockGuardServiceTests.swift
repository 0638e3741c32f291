import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore
import Testing

/// The clock guard component on the manual clock: a wall clock set back beyond 300 s (in a run or between runs)
/// starts a new epoch and time-limited licenses count as expired until renewed; a smaller step, or a step forward,
/// changes nothing.
@Suite struct ClockGuardServiceTests {
    /// A completed title rented for a day.
    static func rentedTitle(_ d: ServiceDriver) throws -> String {
        let rental = GrantedTerms(kind: .rental, requestedAt: d.clock.now(), expiresAt: d.clock.now() + 86_400)
        let token = try d.licensedTitle(files: 1, terms: rental)
        try d.fetchEverything("dl")
        #expect(try d.status(token).license?.expired == false)
        return token
    }

    @Test func theWallClockGoingBackStartsANewEpochAndExpiresTimedLicenses() throws {
        let d = try ServiceDriver()
        let token = try Self.rentedTitle(d)
        d.clock.stepWall(-3_600)
        d.advance(10.1)  // the clock guard runs every 10 s
        #expect(try d.store.setting("clock.epoch") == "1")
        #expect(try d.status(token).license?.expired == true)
        // Forward steps move nothing.
        d.clock.stepWall(7_200)
        d.advance(10.1)
        #expect(try d.store.setting("clock.epoch") == "1")
    }

    @Test func aStepBackWithinTheToleranceChangesNothing() throws {
        let d = try ServiceDriver()
        let token = try Self.rentedTitle(d)
        d.clock.stepWall(-290)
        d.advance(10.1)
        #expect(try d.store.setting("clock.epoch") ?? "0" == "0")
        #expect(try d.status(token).license?.expired == false)
    }

    /// The box was off while its clock was set back: the guard reads the latest time seen from the store at the
    /// start, so the restart itself finds the rollback.
    @Test func aClockSetBackWhileTheSchedulerWasStoppedIsFoundAtTheStart() throws {
        let d = try ServiceDriver()
        let token = try Self.rentedTitle(d)
        d.advance(10.1)  // the latest time seen is stored
        d.clock.stepWall(-3_600)
        try d.restart()
        #expect(try d.store.setting("clock.epoch") == "1")
        #expect(try d.status(token).license?.expired == true)
    }
}
