import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore
import Testing

/// The verification component through the real service: `verify` with and without repair, the scrub at rest
/// on its own timer, verify runs that find bad files, and `gc`.
@Suite struct VerificationServiceTests {
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

    @Test func aRepairFetchesTheBadFilesAgainAndTheTitleCompletesClean() throws {
        let d = try ServiceDriver()
        d.register("int", .integrity)
        let token = try d.licensedTitle(files: 2)
        try d.fetchEverything("dl")
        _ = try d.request(.verify(token: token, repair: true))
        #expect(try d.state(token) == .verifying)
        let checks = try d.tasks(for: "int")
        #expect(checks.count == 2)
        d.answer("int", checks[0], .verified(VerifyReport(ok: false, reason: "bad bytes")))
        d.answer("int", checks[1], .verified(VerifyReport(ok: true)))
        // With repair the bad file is fetched again (not recorded as bad) after its backoff, its new copy verified.
        d.advance(2)
        try d.fetchEverything("dl")
        let title = try #require(try d.store.title(token))
        #expect(title.state == .completed)
        #expect(title.errorCode == nil)
        #expect(try d.status(token).playableOffline)
        #expect(try d.store.progress(token: token).verified == 2)
    }

    @Test func aRepairUnderALicenseThatEndedIsRefusedAndMovesNothing() throws {
        let d = try ServiceDriver()
        d.register("int", .integrity)
        let rental = GrantedTerms(kind: .rental, requestedAt: d.clock.now(), expiresAt: d.clock.now() + 3_600)
        let token = try d.licensedTitle(files: 1, terms: rental)
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        d.clock.advance(7_200)
        guard case .error(let error) = try d.request(.verify(token: token, repair: true)) else {
            throw DriverError("a repair under an expired rental was not refused")
        }
        #expect(error.code == .license)
        #expect(error.message.hasPrefix("cannot repair"))
        #expect(try d.state(token) == .completed)
        #expect(try d.tasks(for: "int").isEmpty)
        // Without repair nothing is fetched, so the check at rest is still allowed.
        guard case .title = try d.request(.verify(token: token, repair: false)) else {
            throw DriverError("verify without repair was refused")
        }
        #expect(try d.state(token) == .verifying)
    }

    @Test func gcRemovesFoldersNoTitleOwnsAndLeftoversOfEndedTitlesOnly() throws {
        let d = try ServiceDriver()
        let done = try d.licensedTitle(files: 1)
        try d.fetchEverything("dl")
        let going = try d.licensedTitle(files: 1, source: "http://origin.test/going/")
        _ = try d.tasks(for: "dl")  // its fetch is out: it is downloading
        #expect(try d.state(done) == .completed)
        #expect(try d.state(going) == .downloading)
        let titles = d.home.appendingPathComponent("titles")
        let fm = FileManager.default
        func put(_ path: String) throws {
            let url = titles.appendingPathComponent(path)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: url)
        }
        try put("stray/seg0.ts")
        try put("\(done)/seg0.ts")
        try put("\(done)/seg1.ts.part")
        try put("\(going)/seg0.ts.part")
        guard case .removed(let removed) = try d.request(.gc) else { throw DriverError("gc did not answer a list") }
        #expect(Set(removed.map { URL(fileURLWithPath: $0).lastPathComponent }) == ["stray", "seg1.ts.part"])
        #expect(!fm.fileExists(atPath: titles.appendingPathComponent("stray").path))
        #expect(fm.fileExists(atPath: titles.appendingPathComponent("\(done)/seg0.ts").path))
        #expect(fm.fileExists(atPath: titles.appendingPathComponent("\(going)/seg0.ts.part").path))
    }
}
