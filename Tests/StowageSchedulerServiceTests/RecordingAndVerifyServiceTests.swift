import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore
import Testing

/// The moves of recordings and of verification at rest, and leases that outlive their time.
@Suite struct RecordingAndVerifyServiceTests {
    static func live(_ first: Int, _ count: Int, ended: Bool = false) -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
            + (first..<(first + count)).map { "#EXTINF:4,\nlive\($0).ts\n" }.joined()
            + (ended ? "#EXT-X-ENDLIST\n" : "")
    }

    @Test func aRecordingReloadsOnItsTimerAndStopEndsItIntoACompletedTitle() throws {
        let d = try ServiceDriver()
        d.register("dl", .download)
        d.register("lic", .license)
        var submit = SubmitRequest(
            url: "http://origin.test/live/media.m3u8", name: nil, priority: 0, headers: [], selection: Selection())
        submit.record = RecordRequest()
        guard case .submitted(let token) = try d.request(.submit(submit)) else { throw DriverError("no token") }
        let resolve = try d.task(for: "dl")
        guard case .resolve(let work) = resolve.work, work.live == true else { throw DriverError("\(resolve.work)") }
        let plan = ResolvedPlan(
            masterPlaylist: "",
            renditions: [
                PlannedRendition(
                    kind: .video, sourceURL: "http://origin.test/live/media.m3u8", localPath: "media.m3u8", playlist: ""
                )
            ],
            resources: [], bytesEstimate: nil)
        d.answer("dl", resolve, .resolved(plan))
        d.answer(
            "lic", try d.task(for: "lic"), .licensed(LicenseGrant(terms: GrantedTerms(kind: .purchase, requestedAt: 1)))
        )
        #expect(try d.state(token) == .recording)
        // The first reload is due at once; what it finds is fetched; the next reload waits for its timer.
        let reload = try d.task(for: "dl")
        guard case .reload = reload.work else { throw DriverError("not a reload: \(reload.work)") }
        d.answer(
            "dl", reload, .reloaded(ReloadReport(text: Self.live(10, 2), url: "http://origin.test/live/media.m3u8")))
        var fetches = try d.tasks(for: "dl")
        #expect(fetches.allSatisfy { if case .reload = $0.work { false } else { true } })
        for fetch in fetches { try d.fetchedAll("dl", fetch) }
        d.advance(1)
        #expect(try d.tasks(for: "dl").isEmpty)  // not due yet
        d.advance(4)
        let next = try d.task(for: "dl")
        guard case .reload = next.work else { throw DriverError("not a reload: \(next.work)") }
        d.answer("dl", next, .reloaded(ReloadReport(text: Self.live(11, 2), url: "http://origin.test/live/media.m3u8")))
        fetches = try d.tasks(for: "dl")
        for fetch in fetches { try d.fetchedAll("dl", fetch) }
        _ = try d.request(.stop(token: token))
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        #expect(try d.moves(token).contains("recording -> downloading"))
        #expect(try d.store.progress(token: token).verified == 3)
    }

    @Test func verifyingACompletedTitleGoesThroughVerifyingAndBack() throws {
        let d = try ServiceDriver()
        d.register("int", .integrity)
        let token = try d.licensedTitle(files: 2)
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        _ = try d.request(.verify(token: token, repair: false))
        #expect(try d.state(token) == .verifying)
        for _ in 0..<4 where try d.state(token) == .verifying {
            for task in try d.tasks(for: "int") { d.answer("int", task, .verified(VerifyReport(ok: true))) }
        }
        #expect(try d.state(token) == .completed)
        #expect(try d.moves(token).suffix(2) == ["completed -> verifying", "verifying -> completed"])
        // Verifying a title that is not completed is refused and moves nothing.
        let other = try d.submit("http://origin.test/other/master.m3u8")
        guard case .error(let error) = try d.request(.verify(token: other, repair: false)) else {
            throw DriverError("verify of a requested title was not refused")
        }
        #expect(error.code == .refused)
        #expect(try d.state(other) == .requested)
    }

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

/// The duties of the clock timer beside the clock guard: renewals before expiry and the scrub at rest.
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

    @Test func theScrubVerifiesACompletedTitleAtRestOncePerInterval() throws {
        let d = try ServiceDriver {
            $0.scrubInterval = 600
            $0.scrubBytesPerSecond = 1_000_000
        }
        d.register("int", .integrity)
        let token = try d.licensedTitle(files: 2)
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        d.advance(10.1)
        #expect(try d.tasks(for: "int").isEmpty)  // verified just now
        d.advance(601)
        var checks = try d.tasks(for: "int")
        #expect(!checks.isEmpty)
        #expect(try d.state(token) == .completed)  // a scrub leaves the title playable while it runs
        for _ in 0..<4 where !checks.isEmpty {
            for task in checks {
                guard case .verify(let work) = task.work else { throw DriverError("not a verify: \(task.work)") }
                #expect(work.bytesPerSecond == 1_000_000)
                d.answer("int", task, .verified(VerifyReport(ok: true)))
            }
            checks = try d.tasks(for: "int")
        }
        #expect(try d.store.events(token: token).contains { $0.kind == "scrub" })
        #expect(try d.state(token) == .completed)
    }
}

/// Renewals of titles still under way, and verify runs that find bad files.
@Suite struct RenewalAndBadFilesServiceTests {
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

    @Test func aVerifyRunThatFindsBadFilesCompletesTheTitleWithAnIntegrityError() throws {
        let d = try ServiceDriver()
        d.register("int", .integrity)
        let token = try d.licensedTitle(files: 2)
        try d.fetchEverything("dl")
        _ = try d.request(.verify(token: token, repair: false))
        for _ in 0..<4 where try d.state(token) == .verifying {
            for task in try d.tasks(for: "int") {
                d.answer("int", task, .verified(VerifyReport(ok: false, reason: "bad bytes")))
            }
        }
        let title = try #require(try d.store.title(token))
        #expect(title.state == .completed)
        #expect(title.errorCode == ErrorCode.integrity.rawValue)
        #expect(try d.moves(token).last?.hasPrefix("verifying -> completed: 2 file(s) failed verification") == true)
        #expect(try d.status(token).playableOffline == false)
    }
}
