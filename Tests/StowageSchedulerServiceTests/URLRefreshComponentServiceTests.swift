import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageSchedulerService
import Testing

/// The URL refresh component through the real service: a file or key refused with 401/403/410 re-resolves the
/// title's playlists for fresh URLs, and what waited for the re-resolution goes out first, in playlist order; a
/// URL from before the last re-resolution goes out again at once; fresh URLs refused with nothing fetched since,
/// or a refusal no fresh URL mends, fail the title.
@Suite struct URLRefreshComponentServiceTests {
    static let origin = "http://origin.test/show/"
    static let fresh = "http://origin.test/fresh/"

    /// What a download worker reports when the origin refuses a signed URL.
    static func refused(_ status: Int) -> TaskFailure {
        var failure = TaskFailure(code: .httpStatus, message: "HTTP \(status)", retryable: false)
        failure.status = status
        return failure
    }

    /// A service fetching `perTitle` files of a title at once.
    func driver(perTitle: Int) throws -> ServiceDriver {
        try ServiceDriver { $0.limitOverrides.perTitle = perTitle }
    }

    /// What went out while a title was driven to its end.
    struct Run {
        /// Every URL sent for a fetch, in the order sent.
        var sent: [String] = []
        /// The URLs of the first fetches sent after each re-resolution was answered.
        var firstAfterResolve: [[String]] = []
        var resolves = 0
    }

    /// Drives the title's work until none is sent: a resolve is answered first with a plan of `files` files at
    /// `sources[n]` (the n-th re-resolution), then the fetches, the last sent first, each file as `outcome` says
    /// (nil: fetched). A second passes before each round's answers (a URL is issued before it is refused).
    func drive(
        _ d: ServiceDriver, files: Int, sources: [String], _ outcome: (String) -> TaskFailure?
    ) throws -> Run {
        var run = Run()
        var afterResolve = false
        for _ in 0..<40 {
            let tasks = try d.tasks(for: "dl")
            if tasks.isEmpty { break }
            let urls = tasks.flatMap(ServiceDriver.urls)
            run.sent += urls
            if afterResolve, !urls.isEmpty { run.firstAfterResolve.append(urls) }
            afterResolve = false
            d.advance(1)
            for task in tasks {
                guard case .resolve = task.work else { continue }
                guard run.resolves < sources.count else { throw DriverError("an unexpected resolve") }
                d.answer("dl", task, .resolved(ServiceDriver.plan(files: files, source: sources[run.resolves])))
                run.resolves += 1
                afterResolve = true
            }
            for task in tasks.reversed() where !ServiceDriver.urls(task).isEmpty {
                try d.answerFetch("dl", task, outcome)
            }
        }
        return run
    }

    func refreshed(_ d: ServiceDriver, _ token: String) throws -> [String] {
        try d.store.events(token: token).filter { $0.kind == "refreshed" }.map(\.detail)
    }

    @Test func aRefusedFileReResolvesTheTitleAndGoesOutFirstWithItsFreshURL() throws {
        let d = try driver(perTitle: 1)
        let token = try d.licensedTitle(files: 4)
        let run = try drive(d, files: 4, sources: [Self.fresh]) { url in
            url == Self.origin + "seg1.ts" ? Self.refused(403) : nil
        }
        #expect(run.resolves == 1)
        #expect(try refreshed(d, token) == ["re-resolved: 4 URLs renewed"])
        #expect(run.firstAfterResolve.first?.first == Self.fresh + "seg1.ts", "\(run.firstAfterResolve)")
        #expect(run.sent.filter { $0.hasSuffix("seg1.ts") } == [Self.origin + "seg1.ts", Self.fresh + "seg1.ts"])
        #expect(try d.state(token) == .completed)
        #expect(try d.store.progress(token: token).verified == 4)
    }

    @Test func refusalsDuringAReResolutionWaitForItAndGoOutFirstInPlaylistOrder() throws {
        let d = try driver(perTitle: 3)
        let token = try d.licensedTitle(files: 6)
        let refused: Set<String> = [Self.origin + "seg0.ts", Self.origin + "seg2.ts"]
        let run = try drive(d, files: 6, sources: [Self.fresh]) { url in
            refused.contains(url) ? Self.refused(url.hasSuffix("seg0.ts") ? 410 : 403) : nil
        }
        #expect(run.resolves == 1, "one re-resolution for both refusals")
        #expect(
            Array((run.firstAfterResolve.first ?? []).prefix(2)) == [Self.fresh + "seg0.ts", Self.fresh + "seg2.ts"],
            "\(run.firstAfterResolve)")
        #expect(try d.state(token) == .completed)
        #expect(try refreshed(d, token).count == 1)
    }

    @Test func aURLHandedOutBeforeTheLastReResolutionGoesOutAgainAtOnceWithTheFreshOne() throws {
        let d = try driver(perTitle: 2)
        let token = try d.licensedTitle(files: 4)
        let out = try d.tasks(for: "dl")
        #expect(out.flatMap(ServiceDriver.urls).prefix(2) == [Self.origin + "seg0.ts", Self.origin + "seg1.ts"])
        d.advance(1)
        // seg0 is refused: a re-resolution, answered while seg1 is still out with its old URL.
        let seg0 = try #require(out.first { ServiceDriver.urls($0).first == Self.origin + "seg0.ts" })
        try d.answerFetch("dl", seg0) { _ in Self.refused(401) }
        let next = try d.tasks(for: "dl")  // the resolve, and the next file in seg0's place
        let resolve = try #require(next.first { if case .resolve = $0.work { true } else { false } })
        d.answer("dl", resolve, .resolved(ServiceDriver.plan(files: 4, source: Self.fresh)))
        // seg1's old URL is refused now: it goes out again with the fresh one, and no second resolve.
        for task in (out + next) where task.taskID != seg0.taskID && task.taskID != resolve.taskID {
            try d.answerFetch("dl", task) { $0 == Self.origin + "seg1.ts" ? Self.refused(403) : nil }
        }
        let run = try drive(d, files: 4, sources: []) { _ in nil }
        #expect(run.resolves == 0)
        #expect(run.sent.contains(Self.fresh + "seg1.ts"), "\(run.sent)")
        let end = try d.status(token)
        #expect(end.state == .completed, "\(end) \(run.sent) \(out)")
        #expect(try refreshed(d, token).count == 1)
    }

    @Test func freshURLsRefusedWithNothingFetchedSinceFailTheTitle() throws {
        let d = try driver(perTitle: 1)
        let token = try d.licensedTitle(files: 2)
        let run = try drive(d, files: 2, sources: [Self.fresh]) { _ in Self.refused(403) }
        #expect(run.resolves == 1, "no second re-resolution")
        #expect(run.sent.contains { $0.hasPrefix(Self.fresh) }, "a fresh URL was tried: \(run.sent)")
        let failed = try d.status(token)
        #expect(failed.state == .failed)
        #expect(failed.error?.code == .httpStatus && failed.error?.message == "HTTP 403")
    }

    @Test func aLongDownloadReResolvesAsOftenAsItMakesProgress() throws {
        let d = try driver(perTitle: 1)
        let token = try d.licensedTitle(files: 3)
        let sources = ["http://origin.test/fresh1/", "http://origin.test/fresh2/"]
        // Each URL works once: the next file's URL has expired by the time it is fetched.
        var used: Set<String> = []
        let run = try drive(d, files: 3, sources: sources) { url in
            let host = url.replacingOccurrences(of: #"seg\d\.ts$"#, with: "", options: .regularExpression)
            return used.insert(host).inserted ? nil : Self.refused(403)
        }
        #expect(run.resolves == 2, "\(run.sent)")
        #expect(try refreshed(d, token).count == 2)
        #expect(try d.state(token) == .completed)
    }

    @Test func aRefusalNoFreshURLMendsFailsTheTitleWithoutReResolving() throws {
        let d = try driver(perTitle: 1)
        let token = try d.licensedTitle(files: 2)
        let run = try drive(d, files: 2, sources: []) { _ in Self.refused(404) }
        #expect(run.resolves == 0)
        #expect(try d.state(token) == .failed)
        #expect(try d.status(token).error?.message == "HTTP 404")
        #expect(try refreshed(d, token).isEmpty)
    }

    @Test func refusedKeysReResolveOnceAndTheLicenseGoesOutAgainWithTheFreshKeyURI() throws {
        let d = try ServiceDriver()
        d.register("dl", .download)
        d.register("lic", .license)
        func plan(_ key: String) -> ResolvedPlan {
            var plan = ServiceDriver.plan(files: 1)
            plan.keys = [PlannedKey(uri: key, method: "AES-128")]
            return plan
        }
        let keyRefused: TaskFailure = {
            var failure = TaskFailure(code: .license, message: "key server answered 403", retryable: false)
            failure.status = 403
            return failure
        }()
        let token = try d.submit()
        d.answer("dl", try d.task(for: "dl"), .resolved(plan("http://origin.test/key?sig=1")))
        d.answer("lic", try d.task(for: "lic"), .failed(keyRefused))
        #expect(try d.state(token) == .licensing)
        d.answer("dl", try d.resolveTask("dl"), .resolved(plan("http://origin.test/key?sig=2")))
        #expect(try refreshed(d, token) == ["re-resolved: 0 URLs renewed"])
        let again = try d.task(for: "lic")
        guard case .license(let work) = again.work else { throw DriverError("not a license: \(again.work)") }
        #expect(work.keyURIs == ["http://origin.test/key?sig=2"])
        // The fresh key URI refused too: a real refusal, the title fails.
        d.answer("lic", again, .failed(keyRefused))
        #expect(try d.state(token) == .failed)
        #expect(try d.status(token).error?.code == .license)
        #expect(try d.tasks(for: "dl").isEmpty)
    }
}
