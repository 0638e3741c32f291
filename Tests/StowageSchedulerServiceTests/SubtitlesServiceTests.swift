import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore
import Testing

/// The subtitles component through the real service: once every fetched file is verified, a title with subtitles
/// sends `subtitles/<lang>.vtt` and `.srt` to the integrity workers to be written (never to a downloader), completes
/// when they are answered, counts what was written, and completes without what could not be converted.
@Suite struct SubtitlesServiceTests {
    static func plan() -> ResolvedPlan {
        let source = "http://origin.test/show/"
        var plan = ServiceDriver.plan(files: 2, source: source)
        plan.masterPlaylist = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="s",NAME="English",LANGUAGE="en",URI="subs-en/index.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=100000,SUBTITLES="s"
            media.m3u8

            """
        plan.renditions.append(
            PlannedRendition(
                kind: .subtitles, sourceURL: source + "subs-en/index.m3u8", localPath: "subs-en/index.m3u8",
                playlist: "#EXTM3U\n#EXT-X-TARGETDURATION:8\n#EXTINF:8,\npart0.vtt\n#EXT-X-ENDLIST\n", language: "en"))
        plan.resources.append(
            PlannedResource(
                kind: .subtitle, rendition: 1, url: source + "subs-en/part0.vtt", rangeOffset: nil, rangeLength: nil,
                localPath: "subs-en/part0.vtt", container: .webVTT, encrypted: false, duration: 8))
        return plan
    }

    @Test func subtitleFilesAreWrittenByIntegrityWorkersBeforeTheTitleCompletes() throws {
        let d = try ServiceDriver()
        d.register("int", .integrity)
        let token = try d.licensedTitle(plan: Self.plan())
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .verifying, "not complete while its subtitles are not written")
        let tasks = try d.tasks(for: "int")
        var conversions: [String: TaskAssignment] = [:]
        for task in tasks {
            guard case .verify(let work) = task.work, let conversion = work.subtitles else {
                throw DriverError("not a subtitle conversion: \(task.work)")
            }
            #expect(conversion.language == "en" && work.sha256 == nil)
            conversions[work.path] = task
        }
        #expect(conversions.keys.sorted() == ["\(token)/subtitles/en.srt", "\(token)/subtitles/en.vtt"])
        let before = try d.status(token).bytesDownloaded
        var written = VerifyReport(ok: true, sha256: String(repeating: "cd", count: 32))
        written.bytes = 321
        d.answer("int", try #require(conversions["\(token)/subtitles/en.vtt"]), .verified(written))
        var refused = VerifyReport(ok: false, reason: "subtitles/en.srt: cannot")
        refused.notConverted = "the 'en' subtitles cannot be converted: subs-en/part0.vtt: not a WebVTT file"
        d.answer("int", try #require(conversions["\(token)/subtitles/en.srt"]), .verified(refused))

        let status = try d.status(token)
        #expect(status.state == .completed && status.error == nil, "\(String(describing: status.error))")
        #expect(status.bytesDownloaded == before + 321, "the written file counts in the title's size")
        #expect(
            status.subtitleFiles == [
                SubtitleFileStatus(file: "subtitles/en.vtt", state: .written),
                SubtitleFileStatus(file: "subtitles/en.srt", state: .notConverted, message: refused.notConverted),
            ])
        #expect(try d.store.events(token: token).contains { $0.kind == "subtitles" && $0.detail.contains("part0.vtt") })
        // Verified at rest like any file, by its recorded hash, and not added again when the run completes.
        _ = try d.request(.verify(token: token, repair: false))
        for _ in 0..<4 where try d.state(token) == .verifying {
            for task in try d.tasks(for: "int") {
                guard case .verify(let work) = task.work else { continue }
                #expect(work.subtitles == nil, "a written file is checked, not written again")
                if work.path.hasSuffix("en.vtt") { #expect(work.sha256 == written.sha256 && work.expectedBytes == 321) }
                d.answer("int", task, .verified(VerifyReport(ok: true)))
            }
        }
        #expect(try d.state(token) == .completed)
        #expect(try d.store.resources(token: token, kind: .subtitleText).count == 2)
    }
}
