import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore
import Testing

/// Whole title lifecycles through the service: requests and results as frames, the store checked after each.
/// Run on both store engines: the scheduler does not know which one holds its state.
@Suite struct TitleLifecycleServiceTests {
    @Test(arguments: DriverEngine.allCases) func aTitleGoesFromSubmitToCompletedThroughEachState(_ engine: DriverEngine)
        throws
    {
        let d = try ServiceDriver(engine: engine)
        d.register("dl", .download)
        d.register("lic", .license)
        let token = try d.submit()
        #expect(try d.state(token) == .requested)
        let resolve = try d.task(for: "dl")
        guard case .resolve(let work) = resolve.work else { throw DriverError("not a resolve: \(resolve.work)") }
        #expect(work.url == "http://origin.test/show/master.m3u8")
        d.answer("dl", resolve, .resolved(ServiceDriver.plan(files: 2)))
        #expect(try d.state(token) == .licensing)
        let license = try d.task(for: "lic")
        d.answer(
            "lic", license, .licensed(LicenseGrant(terms: GrantedTerms(kind: .purchase, requestedAt: d.clock.now()))))
        #expect(try d.state(token) == .requested)  // licensed, waiting for a slot
        let fetches = try d.tasks(for: "dl")
        #expect(!fetches.isEmpty)
        #expect(try d.state(token) == .downloading)  // the first fetch took the slot
        for fetch in fetches { try d.fetchedAll("dl", fetch) }
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        let moves = try d.moves(token)
        #expect(
            moves == [
                "requested http://origin.test/show/master.m3u8", "requested -> licensing", "licensing -> requested",
                "requested -> downloading",
                "downloading -> completed",
            ])
        let status = try d.status(token)
        #expect(status.segmentsDone == 2)
        #expect(status.endedAt != nil)
        #expect(
            FileManager.default.fileExists(atPath: d.home.appendingPathComponent("titles/\(token)/media.m3u8").path))
    }

    @Test(arguments: DriverEngine.allCases) func filesFetchedUnhashedAreVerifiedBeforeTheTitleCompletes(
        _ engine: DriverEngine
    ) throws {
        let d = try ServiceDriver(engine: engine)
        d.register("int", .integrity)
        let token = try d.licensedTitle(files: 1)
        let fetch = try d.task(for: "dl")
        d.answer("dl", fetch, .fetched(FetchReport(bytes: 10, contentLength: 10)))
        #expect(try d.state(token) == .verifying)  // only checks remain
        let verify = try d.task(for: "int")
        d.answer("int", verify, .verified(VerifyReport(ok: true, sha256: String(repeating: "cd", count: 32))))
        #expect(try d.state(token) == .completed)
        #expect(try d.moves(token).suffix(2) == ["downloading -> verifying", "verifying -> completed"])
    }

    @Test(arguments: DriverEngine.allCases) func pauseCallsWorkBackAndResumeQueuesItAgain(_ engine: DriverEngine) throws
    {
        let d = try ServiceDriver(engine: engine)
        let token = try d.licensedTitle(files: 3)
        let fetches = try d.tasks(for: "dl")
        _ = try d.request(.pause(token: token))
        #expect(try d.state(token) == .suspended)
        #expect(try d.store.title(token)?.suspendedReason == .paused)
        let canceled = try d.outbox.take("dl").filter { $0.command == .cancelTask }.map {
            try FrameCodec.body(CancelTask.self, from: $0).taskID
        }
        #expect(Set(canceled) == Set(fetches.map(\.taskID)))
        // The late results of the called-back tasks change nothing.
        for fetch in fetches { try d.fetchedAll("dl", fetch) }
        #expect(try d.store.progress(token: token).verified == 0)
        #expect(try d.tasks(for: "dl").isEmpty)
        _ = try d.request(.resume(token: token))
        #expect(try d.state(token) == .requested)
        #expect(try d.tasks(for: "dl").count == fetches.count)
        #expect(try d.state(token) == .downloading)
        #expect(try d.store.title(token)?.suspendedReason == nil)
    }

    @Test(arguments: DriverEngine.allCases) func aFetchThatKeepsFailingFailsTheTitleAndItsWorkIsForgotten(
        _ engine: DriverEngine
    ) throws {
        let d = try ServiceDriver(engine: engine) { $0.maxAttempts = 2 }
        let token = try d.licensedTitle(files: 1)
        for _ in 0..<4 where try d.state(token) != .failed {
            for fetch in try d.tasks(for: "dl") {
                d.answer("dl", fetch, .failed(TaskFailure(code: .httpStatus, message: "HTTP 403", retryable: true)))
            }
            d.advance(31)  // past the longest backoff
        }
        #expect(try d.state(token) == .failed)
        #expect(try d.store.title(token)?.errorCode == ErrorCode.httpStatus.rawValue)
        #expect(try d.moves(token).last?.hasPrefix("downloading -> failed") == true)
        #expect(d.service.memory.retries.isEmpty)  // no retry survives the end
        d.advance(60)
        #expect(try d.tasks(for: "dl").isEmpty)
        // A failed title resumes from what it has.
        _ = try d.request(.resume(token: token))
        #expect(try d.state(token) == .requested)
        #expect(try d.store.title(token)?.errorCode == nil)
    }

    @Test(arguments: DriverEngine.allCases) func cancelRemovesTheFilesAndKeepsTheRecord(_ engine: DriverEngine) throws {
        let d = try ServiceDriver(engine: engine)
        let token = try d.licensedTitle(files: 2)
        try d.fetchedAll("dl", try #require(try d.tasks(for: "dl").first))
        let folder = d.home.appendingPathComponent("titles/\(token)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = try d.request(.cancel(token: token))
        #expect(try d.state(token) == .canceled)
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        #expect(try d.store.progress(token: token).verified == 0)
        #expect(try d.moves(token).last == "downloading -> canceled: canceled by the operator")
    }

    @Test(arguments: DriverEngine.allCases) func resumingAFinishedTitleIsRefusedAndChangesNothing(
        _ engine: DriverEngine
    ) throws {
        let d = try ServiceDriver(engine: engine)
        let token = try d.licensedTitle(files: 1)
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        let reply = try d.request(.resume(token: token))
        guard case .error(let error) = reply else { throw DriverError("resume of a completed title: \(reply)") }
        #expect(error.code == .refused)
        #expect(try d.state(token) == .completed)
    }

    @Test(arguments: DriverEngine.allCases) func aPreloadedTitleStopsLicensedAndASecondSubmitDownloadsIt(
        _ engine: DriverEngine
    ) throws {
        let d = try ServiceDriver(engine: engine)
        d.register("dl", .download)
        d.register("lic", .license)
        var submit = SubmitRequest(
            url: "http://origin.test/show/master.m3u8", name: nil, priority: 0, headers: [], selection: Selection())
        submit.preloadOnly = true
        guard case .submitted(let token) = try d.request(.submit(submit)) else { throw DriverError("no token") }
        d.answer("dl", try d.task(for: "dl"), .resolved(ServiceDriver.plan(files: 1)))
        d.answer(
            "lic", try d.task(for: "lic"), .licensed(LicenseGrant(terms: GrantedTerms(kind: .purchase, requestedAt: 1)))
        )
        #expect(try d.state(token) == .licensed)
        #expect(try d.tasks(for: "dl").isEmpty)
        submit.preloadOnly = false
        #expect(try d.request(.submit(submit)) == .submitted(token: token))
        #expect(try d.state(token) == .requested)
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
    }

    @Test(arguments: DriverEngine.allCases) func aRestartResumesFromTheStore(_ engine: DriverEngine) throws {
        let d = try ServiceDriver(engine: engine)
        let token = try d.licensedTitle(files: 3)
        try d.fetchedAll("dl", try #require(try d.tasks(for: "dl").first))
        #expect(try d.store.progress(token: token).verified == 1)
        try d.restart()  // leases died with the process
        d.register("dl", .download)
        d.advance(60)  // connections a worker may still hold from before have closed
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        #expect(try d.store.progress(token: token).verified == 3)
    }
}
