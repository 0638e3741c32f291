import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageSchedulerService
import Testing

/// The disk component through the real service: a title is admitted at its plan only if it fits beside what
/// active titles were promised and the cushion (`--disk-cushion`, `stowctl limits`, live), and a title suspended
/// because the disk filled carries on by itself once its 2 s check finds room.
@Suite struct DiskComponentServiceTests {
    /// Free bytes where the driver's titles are kept (as the component measures them).
    static func freeBytes(_ d: ServiceDriver) throws -> Int64 {
        var info = statvfs()
        let titles = d.home.appendingPathComponent("titles")
        #expect(FileManager.default.fileExists(atPath: titles.path), "the service made its titles folder")
        guard statvfs(titles.path, &info) == 0 else { throw DriverError("statvfs \(titles.path) failed") }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// A plan of one file whose playlists promise `bytes`.
    static func plan(_ bytes: Int64, source: String) -> ResolvedPlan {
        var plan = ServiceDriver.plan(files: 1, source: source)
        plan.bytesEstimate = bytes
        return plan
    }

    func setCushion(_ d: ServiceDriver, _ bytes: Int64) throws {
        guard case .limits = try d.request(.limits(LimitsInfo(diskCushion: bytes))) else {
            throw DriverError("limits refused a cushion of \(bytes)")
        }
    }

    @Test func aTitleThatCannotFitBesideTheCushionFailsAtItsPlanNamingTheFigures() throws {
        let d = try ServiceDriver()
        d.register("dl", .download)
        d.register("lic", .license)
        try setCushion(d, 1 << 50)  // no disk here has room for this cushion
        let token = try d.submit()
        d.answer("dl", try d.task(for: "dl"), .resolved(ServiceDriver.plan(files: 2)))
        let failed = try d.status(token)
        #expect(failed.state == .failed)
        #expect(failed.error?.code == .diskFull)
        let message = failed.error?.message ?? ""
        #expect(message.hasPrefix("http://origin.test/show/master.m3u8: needs about 2.0 KiB but only "), "\(message)")
        #expect(message.contains("and 1024.0 TiB is kept as a cushion"), "\(message)")
        #expect(message.hasSuffix("free some space or lower the scheduler's --disk-cushion"), "\(message)")
        #expect(try d.tasks(for: "lic").isEmpty, "a title that does not fit is not licensed")
        // The cushion changes live: the same title, resumed, fits now.
        try setCushion(d, 0)
        _ = try d.request(.resume(token: token))
        d.answer("dl", try d.task(for: "dl"), .resolved(ServiceDriver.plan(files: 2)))
        #expect(try d.state(token) == .licensing)
    }

    @Test func theLedgerCountsWhatTitlesStillDownloadingWerePromised() throws {
        let d = try ServiceDriver()
        try setCushion(d, 0)
        // Each title promises 60 % of the free space: one fits, two do not (a margin of 40 % for other writers).
        let big = try Self.freeBytes(d) / 10 * 6
        let first = try d.licensedTitle(plan: Self.plan(big, source: "http://origin.test/first/"))
        #expect(try d.state(first) == .requested, "the first fits")
        let second = try d.submit("http://origin.test/second/master.m3u8")
        d.answer("dl", try d.resolveTask("dl"), .resolved(Self.plan(big, source: "http://origin.test/second/")))
        let refused = try d.status(second)
        #expect(refused.state == .failed && refused.error?.code == .diskFull, "\(refused)")
        #expect(
            refused.error?.message.contains("of it promised to 1 title(s) still downloading") == true,
            "\(String(describing: refused.error))")
        // The first title ends: its promise is gone, and the second fits.
        _ = try d.request(.cancel(token: first))
        _ = try d.request(.resume(token: second))
        d.answer("dl", try d.resolveTask("dl"), .resolved(Self.plan(big, source: "http://origin.test/second/")))
        #expect(try d.state(second) == .licensing)
    }

    @Test func aFetchThatFindsTheDiskFullSuspendsTheTitleUntilTheTwoSecondCheckFindsRoom() throws {
        let d = try ServiceDriver()
        let token = try d.licensedTitle(files: 2)
        try setCushion(d, 1 << 50)
        let full = TaskFailure(code: .diskFull, message: "No space left on device", retryable: true)
        for task in try d.tasks(for: "dl") { try d.answerFetch("dl", task) { _ in full } }
        let waiting = try d.status(token)
        #expect(waiting.state == .suspended && waiting.suspendedReason == .diskFull, "\(waiting)")
        #expect(waiting.error?.code == .diskFull)
        #expect(waiting.error?.message == "No space left on device; suspended until space returns")
        d.advance(2.1)  // the check runs and finds no room
        #expect(try d.state(token) == .suspended)
        #expect(try d.tasks(for: "dl").isEmpty)
        try setCushion(d, 0)  // space is back
        d.advance(1.9)
        #expect(try d.state(token) == .suspended, "the disk check waits for its 2 s")
        d.advance(0.2)
        #expect([.requested, .downloading].contains(try d.state(token)))
        let moves = try d.moves(token)
        #expect(moves.contains("suspended -> requested"), "\(moves)")
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        #expect(try d.status(token).error == nil)
    }

    @Test func aTitleSuspendedForSpaceBeforeARestartResumesWhenTheCheckFindsRoom() throws {
        let d = try ServiceDriver()
        let token = try d.licensedTitle(files: 1)
        _ = try d.task(for: "dl")
        // Stored by an earlier run: suspended for space. Only the reason says so (no error code).
        var title = try #require(try d.store.title(token))
        title.state = .suspended
        title.suspendedReason = .diskFull
        title.errorCode = nil
        try d.store.update(title)
        try setCushion(d, 1 << 50)
        try d.restart()
        d.register("dl", .download)
        d.tick()  // the first pass runs every duty: the disk check finds no room
        #expect(try d.state(token) == .suspended)
        try setCushion(d, 1)
        d.advance(1.9)
        #expect(try d.state(token) == .suspended)  // the disk check waits for its 2 s
        d.advance(0.2)
        #expect([.requested, .downloading].contains(try d.state(token)))
    }
}
