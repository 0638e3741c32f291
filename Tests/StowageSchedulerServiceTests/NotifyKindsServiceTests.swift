import Foundation
import StowageProtocol
import StowageSchedulerService
import StowageStore
import Testing

/// The event kinds beside state moves: a license entering the expiry window (once per term, not again after a
/// restart), catalogues applied and refused (once per refusal).
@Suite struct NotifyKindsServiceTests {
    static func driver(ahead: Double = 3_600) throws -> ServiceDriver {
        try ServiceDriver { options in
            options.notify.receivers = [NotifyServiceTests.receiver]
            options.notify.feed = NotifyFeed()
            options.notify.expiryAhead = ahead
        }
    }

    static func kinds(_ d: ServiceDriver, _ kind: NotifyEvent.Kind) throws -> [NotifyEvent] {
        try NotifyServiceTests.events(d.store).filter { $0.kind == kind }
    }

    @Test func aLicenseEnteringTheWindowIsAnnouncedOncePerTerm() throws {
        let d = try Self.driver()
        let rental = GrantedTerms(kind: .rental, requestedAt: d.clock.now(), expiresAt: d.clock.now() + 7_200)
        let token = try d.licensedTitle(files: 1, terms: rental)
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        d.advance(10.1)
        #expect(try Self.kinds(d, .licenseExpiring).isEmpty)  // two hours left
        d.advance(3_610)  // less than an hour left
        let announced = try Self.kinds(d, .licenseExpiring)
        #expect(announced.map(\.token) == [token])
        #expect(announced.first?.status?.license?.expiresAt != nil)
        d.advance(10.1)
        try d.restart()
        d.advance(10.1)
        #expect(try Self.kinds(d, .licenseExpiring).count == 1)
    }

    @Test func catalogueAppliedAndRefusedAreAnnouncedOncePerRefusal() throws {
        let d = try Self.driver()
        let good = CatalogServiceTests.document(version: 2, ids: ["a"])
        _ = try CatalogServiceTests().apply(d, good)
        #expect(try Self.kinds(d, .catalogApplied).map(\.detail) == ["version 2, 1 titles, from apply"])
        let old = CatalogServiceTests.document(version: 1, ids: ["b"])
        _ = try? CatalogServiceTests().apply(d, old)
        _ = try? CatalogServiceTests().apply(d, old)
        let refused = try Self.kinds(d, .catalogRefused)
        #expect(refused.count == 1)
        #expect(refused.first?.detail?.hasPrefix("older-version") == true)
        #expect(refused.first?.token == nil)
    }

    @Test func aVerifyRunThatFindsBadFilesIsAnnouncedAfterItsMoves() throws {
        let d = try Self.driver()
        d.register("int", .integrity)
        let token = try d.licensedTitle(files: 2)
        try d.fetchEverything("dl")
        _ = try d.request(.verify(token: token, repair: false))
        for _ in 0..<4 where try d.state(token) == .verifying {
            for task in try d.tasks(for: "int") {
                d.answer("int", task, .verified(VerifyReport(ok: false, reason: "bad bytes")))
            }
        }
        let events = try NotifyServiceTests.events(d.store)
        let failed = events.filter { $0.kind == .verificationFailed }
        #expect(failed.count == 1)
        #expect(failed.first?.detail?.contains("2 file(s) failed verification") == true)
        #expect(failed.first?.status?.error?.code == .integrity)
        // Before the move it caused, in the title's order.
        #expect(events.last?.detail?.hasPrefix("verifying -> completed") == true)
    }
}
