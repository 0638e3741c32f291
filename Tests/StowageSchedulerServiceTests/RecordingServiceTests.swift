import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore
import Testing

/// The recording component through the real service: reloads on their own timer, `stop`, the stream's end, gaps,
/// stalls, reloads that keep failing, keys met during the event and a restart in the middle of a recording.
@Suite struct RecordingServiceTests {
    static let source = "http://origin.test/live/media.m3u8"

    static func live(_ first: Int, _ count: Int, ended: Bool = false, key: String? = nil) -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
            + (key.map { "#EXT-X-KEY:METHOD=AES-128,URI=\"\($0)\"\n" } ?? "")
            + (first..<(first + count)).map { "#EXTINF:4,\nlive\($0).ts\n" }.joined()
            + (ended ? "#EXT-X-ENDLIST\n" : "")
    }

    /// Submits a recording and walks it through resolve and license with workers `dl` and `lic`: it is then
    /// recording, its first reload due.
    static func recording(_ d: ServiceDriver) throws -> String {
        d.register("dl", .download)
        d.register("lic", .license)
        var submit = SubmitRequest(url: source, name: nil, priority: 0, headers: [], selection: Selection())
        submit.record = RecordRequest()
        guard case .submitted(let token) = try d.request(.submit(submit)) else { throw DriverError("no token") }
        let resolve = try d.task(for: "dl")
        guard case .resolve(let work) = resolve.work, work.live == true else { throw DriverError("\(resolve.work)") }
        let plan = ResolvedPlan(
            masterPlaylist: "",
            renditions: [PlannedRendition(kind: .video, sourceURL: source, localPath: "media.m3u8", playlist: "")],
            resources: [], bytesEstimate: nil)
        d.answer("dl", resolve, .resolved(plan))
        d.answer(
            "lic", try d.task(for: "lic"), .licensed(LicenseGrant(terms: GrantedTerms(kind: .purchase, requestedAt: 1)))
        )
        #expect(try d.state(token) == .recording)
        return token
    }

    /// Answers the reload `task` with `text`.
    static func reloaded(_ d: ServiceDriver, _ task: TaskAssignment, _ text: String) throws {
        guard case .reload = task.work else { throw DriverError("not a reload: \(task.work)") }
        d.answer("dl", task, .reloaded(ReloadReport(text: text, url: source)))
    }

    /// Answers every task `dl` got now: reloads with `text` (nil: none expected), fetches as fetched.
    static func answerAll(_ d: ServiceDriver, reload text: String?) throws {
        for task in try d.tasks(for: "dl") {
            if case .reload = task.work {
                guard let text else { throw DriverError("an unexpected reload") }
                try reloaded(d, task, text)
            } else {
                try d.fetchedAll("dl", task)
            }
        }
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

    @Test func aSegmentThatLeftTheWindowIsAGapAndTheRecordingGoesOn() throws {
        let d = try ServiceDriver()
        let token = try Self.recording(d)
        try Self.reloaded(d, try d.task(for: "dl"), Self.live(10, 3))
        let gone = TaskFailure(code: .httpStatus, message: "HTTP 404", retryable: false)
        var failure = gone
        failure.status = 404
        for task in try d.tasks(for: "dl") {
            switch task.work {
            case .fetch(let work) where work.path.hasSuffix("11.ts"):
                d.answer("dl", task, .failed(failure))
            case .fetchBatch(let batch):
                let results = batch.items.map {
                    $0.path.hasSuffix("11.ts") ? FetchItemResult.failed(failure) : .fetched(ServiceDriver.hashed(1_000))
                }
                d.answer("dl", task, .fetchedBatch(FetchBatchReport(results: results)))
            default:
                try d.fetchedAll("dl", task)
            }
        }
        #expect(try d.state(token) == .recording)
        #expect(try d.status(token).gaps == [RecordingGap(from: 4, to: 8)])
        #expect(try d.store.events(token: token).contains { $0.kind == "gap" && $0.detail.contains("HTTP 404") })
        _ = try d.request(.stop(token: token))
        try d.fetchEverything("dl")
        let status = try d.status(token)
        #expect(status.state == .completed)
        #expect(status.recordedSeconds == 8)
        #expect(status.gaps == [RecordingGap(from: 4, to: 8)])
    }

    @Test func aPlaylistThatStopsChangingIsStalledUntilItChangesAgain() throws {
        let d = try ServiceDriver()
        let token = try Self.recording(d)
        try Self.reloaded(d, try d.task(for: "dl"), Self.live(10, 2))
        try Self.answerAll(d, reload: nil)
        #expect(try d.status(token).stalledSince == nil)
        // Unchanged reloads come every half target duration; after three target durations it is stalled.
        for _ in 0..<8 {
            d.advance(2.1)
            try Self.answerAll(d, reload: Self.live(10, 2))
        }
        let stalled = try #require(try d.status(token).stalledSince)
        #expect(!stalled.isEmpty)
        #expect(try d.state(token) == .recording)  // a stall is reported; the recording goes on
        for _ in 0..<3 where try d.status(token).stalledSince != nil {
            d.advance(2.1)
            try Self.answerAll(d, reload: Self.live(11, 2))
        }
        #expect(try d.status(token).stalledSince == nil)
    }

    @Test func aPlaylistThatKeepsFailingEndsTheRecordingWithWhatItHas() throws {
        let d = try ServiceDriver { $0.maxAttempts = 2 }
        let token = try Self.recording(d)
        try Self.reloaded(d, try d.task(for: "dl"), Self.live(10, 1))
        try Self.answerAll(d, reload: nil)
        let broken = TaskFailure(code: .playlist, message: "not a playlist", retryable: false)
        d.advance(4.1)
        d.answer("dl", try d.task(for: "dl"), .failed(broken))
        #expect(try d.state(token) == .recording)  // one failure is tried again
        d.advance(30)
        d.answer("dl", try d.task(for: "dl"), .failed(broken))
        let events = try d.store.events(token: token)
        #expect(events.contains { $0.kind == "recording-error" && $0.detail == "not a playlist" })
        #expect(events.contains { $0.kind == "recording-ended" && $0.detail.hasPrefix("the playlist could not be") })
        #expect(try d.state(token) == .completed)
        #expect(try d.store.progress(token: token).verified == 1)
    }

    @Test func reloadsThatCannotReachTheOriginWaitForTheNetwork() throws {
        let d = try ServiceDriver { $0.maxAttempts = 2 }
        let token = try Self.recording(d)
        try Self.reloaded(d, try d.task(for: "dl"), Self.live(10, 1))
        try Self.answerAll(d, reload: nil)
        var unreachable = TaskFailure(code: .network, message: "connection refused", retryable: true)
        unreachable.endpoint = "origin.test:80"
        d.advance(4.1)
        d.answer("dl", try d.task(for: "dl"), .failed(unreachable))
        d.advance(30)
        d.answer("dl", try d.task(for: "dl"), .failed(unreachable))
        let title = try #require(try d.store.title(token))
        #expect(title.state == .suspended)
        #expect(title.suspendedReason == .network)
        #expect(title.recordingEndedAt == nil)  // it carries on recording once the origin answers
    }

    @Test func aKeyMetDuringTheRecordingIsFetchedByAKeyOnlyLicenseTask() throws {
        let d = try ServiceDriver()
        let token = try Self.recording(d)
        try Self.reloaded(d, try d.task(for: "dl"), Self.live(10, 2, key: "k1.key"))
        #expect(try d.store.events(token: token).contains { $0.kind == "key" && $0.detail == "1 new key(s) met" })
        let keyTask = try d.task(for: "lic")
        guard case .license(let work) = keyTask.work else { throw DriverError("not a license task: \(keyTask.work)") }
        #expect(work.keysOnly == true)
        #expect(work.keyURIs == ["http://origin.test/live/k1.key"])
        try Self.answerAll(d, reload: nil)
        _ = try d.request(.stop(token: token))
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .downloading)  // it waits for the key it met
        let key = Data(repeating: 7, count: 16).base64EncodedString()
        d.answer(
            "lic", keyTask, .licensed(LicenseGrant(terms: GrantedTerms(kind: .purchase, requestedAt: 1), keys: [key])))
        #expect(try d.store.events(token: token).contains { $0.kind == "key" && $0.detail == "1 key(s) acquired" })
        #expect(try d.store.keys(token: token).allSatisfy { $0.wrapped != nil })
        #expect(try d.state(token) == .completed)
    }

    @Test func aRestartCarriesOnReloadingAndTheStreamsEndEndsTheRecording() throws {
        let d = try ServiceDriver()
        let token = try Self.recording(d)
        try Self.reloaded(d, try d.task(for: "dl"), Self.live(10, 2))
        try Self.answerAll(d, reload: nil)
        try d.restart()
        d.register("dl", .download)
        #expect(try d.state(token) == .recording)
        // Host work waits until connections of the previous run have idled out; then the reload is due at once.
        d.advance(Double(WireProtocol.connectionIdleMilliseconds) / 1000 + 1)
        try Self.reloaded(d, try d.task(for: "dl"), Self.live(11, 2, ended: true))
        #expect(
            try d.store.events(token: token).contains {
                $0.kind == "recording-ended" && $0.detail == "the stream ended"
            })
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
        #expect(try d.store.progress(token: token).verified == 3)
    }
}
