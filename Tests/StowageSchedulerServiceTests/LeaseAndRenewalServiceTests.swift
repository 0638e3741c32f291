import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore
import Testing

/// Leases that outlive their time (recordings and verification have their components' suites).
@Suite struct LeaseServiceTests {
    @Test func aLeaseThatOutlivesItsTimeGoesOutAgainToALiveWorker() throws {
        let d = try ServiceDriver()
        let token = try d.licensedTitle(files: 1)
        let first = try d.task(for: "dl")
        d.advance(300)
        #expect(try d.tasks(for: "dl").isEmpty)  // a fetch lease lasts 600 s
        d.advance(301)
        let again = try d.task(for: "dl")
        #expect(again.taskID != first.taskID)
        try d.fetchedAll("dl", first)  // the expired lease's answer is stale
        #expect(try d.state(token) == .downloading)
        try d.fetchedAll("dl", again)
        #expect(try d.state(token) == .completed)
    }
}

/// The duties of the clock timer beside the clock guard: renewals before expiry.
@Suite struct ClockDutyServiceTests {
    @Test func aLicenseIsRenewedOnTheTimerBeforeItEnds() throws {
        let d = try ServiceDriver { $0.autoRenewBefore = 3_600 }
        let rental = GrantedTerms(kind: .rental, requestedAt: d.clock.now(), expiresAt: d.clock.now() + 7_200)
        let token = try d.licensedTitle(files: 1, terms: rental)
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        d.advance(10.1)
        #expect(try d.tasks(for: "lic").isEmpty)  // more than an hour left
        d.advance(3_700)  // less than an hour left
        let renewal = try d.task(for: "lic")
        guard case .license(let work) = renewal.work else { throw DriverError("not a license task: \(renewal.work)") }
        #expect(work.renewal == true)
        guard case .license(let report) = try d.request(.license(token: token)) else { throw DriverError("no report") }
        #expect(report.renewing)
        let later = GrantedTerms(kind: .rental, requestedAt: d.clock.now(), expiresAt: d.clock.now() + 86_400)
        d.answer("lic", renewal, .licensed(LicenseGrant(terms: later)))
        #expect(try d.state(token) == .completed)
        #expect(try d.store.events(token: token).contains { $0.kind == "license" && $0.detail.hasPrefix("renewed") })
        d.advance(10.1)
        #expect(try d.tasks(for: "lic").isEmpty)  // not again right after
    }
}

/// Renewals of titles still under way.
@Suite struct RenewalServiceTests {
    @Test func aRenewalOfADownloadingTitleLeavesItDownloading() throws {
        let d = try ServiceDriver()
        let token = try d.licensedTitle(files: 3)
        let fetches = try d.tasks(for: "dl")
        #expect(try d.state(token) == .downloading)
        _ = try d.request(.renew(token: token, terms: nil, licenseURL: nil))
        let renewal = try d.task(for: "lic")
        let later = GrantedTerms(kind: .rental, requestedAt: d.clock.now(), expiresAt: d.clock.now() + 86_400)
        d.answer("lic", renewal, .licensed(LicenseGrant(terms: later)))
        #expect(try d.state(token) == .downloading)
        #expect(try d.store.events(token: token).contains { $0.kind == "license" && $0.detail.hasPrefix("renewed") })
        for fetch in fetches { try d.fetchedAll("dl", fetch) }
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        #expect(try d.status(token).license?.kind == .rental)
    }
}
