import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// DASH titles made by ffmpeg's `dash` muxer (and MPDs the tests write around its files) through the whole
/// pipeline: the offline copy is a local MPD naming only local files, and plays frame for frame as the origin's
/// Representation, through `stowctl play` with the origin stopped.
@Suite("DASH", .serialized)
struct DASHTests {
    func start(_ name: String, _ make: (URL) throws -> Void) throws -> Harness {
        let h = try Harness(name: name)
        try make(h.media)
        try h.startOrigin()
        try h.startPipeline()
        return h
    }

    func submitAndWait(_ h: Harness, _ path: String, _ options: [String] = []) throws -> TitleStatus {
        let status = try h.waitForFinal(try h.submit(path, options), timeout: 120)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        return status
    }

    /// Stops the origin, serves the title with `stowctl play` and compares each stream with its reference.
    func checkPlaysOffline(_ h: Harness, _ status: TitleStatus, _ expected: [(stream: String, frames: String)])
        throws
    {
        #expect(h.terminate("origin") == 0, "the origin stops cleanly on SIGTERM")
        let entry = try h.startPlay(status.token)
        #expect(entry.hasSuffix("/manifest.mpd"), "play serves the local MPD: \(entry)")
        for (stream, frames) in expected {
            let played = DASHMedia.hashes(try OfflineCopy.framemd5(entry, stream: stream))
            #expect(played.count > 50, "stream \(stream): \(played.count) frames")
            #expect(played == DASHMedia.hashes(frames), "stream \(stream) plays as the origin's, frame for frame")
        }
    }

    func localManifest(_ status: TitleStatus) throws -> String {
        let path = try #require(status.localPlaylist)
        #expect(path.hasSuffix("/manifest.mpd"))
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test func templateWithTimelinePlaysOffline() throws {
        let h = try start("dash-timeline") { try DASHMedia.template(into: $0, timeline: true) }
        let status = try submitAndWait(h, "manifest.mpd")
        #expect(status.playableOffline && status.notPlayableReason == nil && status.protection == nil)
        #expect(status.segmentsTotal == 4 + 5, "the lowest video (init + 3) and the audio (init + 4)")
        let manifest = try localManifest(status)
        #expect(!manifest.contains(h.originURL) && manifest.contains("<SegmentTimeline>"), "\(manifest)")
        #expect(h.originRequests(containing: "chunk-stream1-") == 0, "the higher video is not fetched")
        #expect(h.originRequests(containing: "chunk-stream0-") == 3, "the lower video is, once per segment")
        // verify --repair works on a DASH copy as on HLS: a damaged segment is fetched again, the rest kept.
        let dir = URL(fileURLWithPath: try #require(status.localPlaylist)).deletingLastPathComponent()
        let damaged = dir.appendingPathComponent("p0/video-0-0/seg-00002.m4s")
        let handle = try FileHandle(forWritingTo: damaged)
        try handle.seek(toOffset: 600)
        handle.write(Data("damage".utf8))
        try handle.close()
        let before = h.originRequests(containing: "chunk-stream")
        let (code, out) = try h.stowctl(["verify", status.token, "--repair"])
        #expect(code == 0, "\(out)")
        try h.waitUntil(timeout: 60, "the damaged segment repaired") {
            (try? Data(contentsOf: damaged))
                == (try? Data(contentsOf: h.media.appendingPathComponent("chunk-stream0-00002.m4s")))
        }
        #expect(h.originRequests(containing: "chunk-stream") == before + 1, "only the damaged file is fetched again")
        let video = try DASHMedia.referenceFrames(
            h.media, files: DASHMedia.templateFiles(h.media, stream: 0), stream: "v", name: "ref-v.mp4")
        let audio = try DASHMedia.referenceFrames(
            h.media, files: DASHMedia.templateFiles(h.media, stream: 2), stream: "a", name: "ref-a.mp4")
        try checkPlaysOffline(h, status, [("v", video), ("a", audio)])
    }

    @Test func templateWithoutTimelineHonoursBitrate() throws {
        let h = try start("dash-number") { try DASHMedia.template(into: $0, timeline: false) }
        let manifest = try String(contentsOf: h.media.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        #expect(!manifest.contains("SegmentTimeline"), "ffmpeg wrote a duration-only template")
        let (_, variants) = try h.stowctl(["variants", h.originURL + "manifest.mpd"])
        #expect(variants.contains("640x360") || variants.contains("360"), "\(variants)")
        let status = try submitAndWait(h, "manifest.mpd", ["--bitrate", "1000000"])
        #expect(h.originRequests(containing: "chunk-stream0-") == 0, "--bitrate picks the 800 kb/s video")
        #expect(h.originRequests(containing: "chunk-stream1-") == 3)
        let video = try DASHMedia.referenceFrames(
            h.media, files: DASHMedia.templateFiles(h.media, stream: 1), stream: "v", name: "ref-v.mp4")
        try checkPlaysOffline(h, status, [("v", video)])
    }

    @Test func segmentBaseIsReadThroughItsIndex() throws {
        let h = try start("dash-sidx") { try DASHMedia.segmentBase(into: $0) }
        let status = try submitAndWait(h, "manifest.mpd")
        #expect(status.segmentsTotal >= 2 + 4, "init and one file per sidx reference: \(status.segmentsTotal)")
        // ffmpeg's own MPD for the same files: a SegmentList of byte ranges.
        let list = try submitAndWait(h, "single.mpd")
        #expect(list.segmentsTotal == status.segmentsTotal, "the same segments, by SegmentList as by sidx")
        let video = try OfflineCopy.framemd5(h.media.appendingPathComponent("single-stream0.mp4").path, stream: "v")
        let audio = try OfflineCopy.framemd5(h.media.appendingPathComponent("single-stream1.mp4").path, stream: "a")
        let listEntry = try h.startPlay(list.token)
        let listVideo = DASHMedia.hashes(try OfflineCopy.framemd5(listEntry, stream: "v"))
        #expect(listVideo == DASHMedia.hashes(video), "the SegmentList title plays as the file")
        try checkPlaysOffline(h, status, [("v", video), ("a", audio)])
    }

    /// Two Periods (ffmpeg's Period twice, from folders `a/` and `b/`) under two MPD BaseURLs, the first a host
    /// that refuses connections: every file comes from the second, both Periods are kept.
    @Test func periodsAndBaseURLFailOver() throws {
        let h = try Harness(name: "dash-periods")
        try DASHMedia.template(into: h.media.appendingPathComponent("a"), timeline: true)
        try TestMedia.sh("cp -r a b", in: h.media)
        try h.startOrigin()
        let ffmpegMPD = try String(contentsOf: h.media.appendingPathComponent("a/manifest.mpd"), encoding: .utf8)
        let period = try #require(
            ffmpegMPD.range(of: "<Period").flatMap { start in
                ffmpegMPD.range(of: "</Period>").map { String(ffmpegMPD[start.lowerBound..<$0.upperBound]) }
            })
        var periods = ""
        for (n, folder) in ["a", "b"].enumerated() {
            periods += period.replacingOccurrences(
                of: "<Period id=\"0\" start=\"PT0.0S\">",
                with: "<Period id=\"\(folder)\" start=\"PT\(n * 6)S\" duration=\"PT6S\"><BaseURL>\(folder)/</BaseURL>")
            periods += "\n"
        }
        #expect(periods.contains("<BaseURL>b/</BaseURL>"), "ffmpeg's Period opens as expected")
        try DASHMedia.mpd(duration: 12, periods: periods, baseURLs: ["http://127.0.0.1:9/", h.originURL + "/"])
            .write(to: h.media.appendingPathComponent("manifest.mpd"), atomically: true, encoding: .utf8)
        try h.startPipeline()
        let status = try submitAndWait(h, "manifest.mpd")
        #expect(status.segmentsTotal == 2 * 9)
        let manifest = try localManifest(status)
        #expect(manifest.components(separatedBy: "<Period ").count == 3, "both Periods are kept: \(manifest)")
        let dir = URL(fileURLWithPath: try #require(status.localPlaylist)).deletingLastPathComponent()
        for (local, origin) in [
            ("p1/video-0-0/init.mp4", "b/init-stream0.m4s"),
            ("p1/video-0-0/seg-00003.m4s", "b/chunk-stream0-00003.m4s"),
            ("p1/audio-1-0/seg-00004.m4s", "b/chunk-stream2-00004.m4s"),
        ] {
            #expect(
                try Data(contentsOf: dir.appendingPathComponent(local))
                    == Data(contentsOf: h.media.appendingPathComponent(origin)), "\(local) is \(origin)")
        }
        #expect(h.originRequests(matching: "b/chunk-stream0-00001.m4s") >= 1)
        let video = try DASHMedia.referenceFrames(
            h.media, files: DASHMedia.templateFiles(h.media.appendingPathComponent("a"), stream: 0).map { "a/" + $0 },
            stream: "v", name: "ref-v.mp4")
        try checkPlaysOffline(h, status, [("v", video)])
    }

    /// Crash recovery is the same for DASH files: after a `kill -9` of the scheduler no file the store had
    /// verified is requested again, and the copy completes and plays.
    @Test func survivesKillingTheScheduler() throws {
        let h = try Harness(name: "dash-kill")
        try DASHMedia.template(into: h.media, timeline: true, seconds: 20)
        try h.startOrigin(throttleBytesPerSecond: 400_000)
        try h.startPipeline(schedulerArguments: ["--per-title", "2"])
        let token = try h.submit("manifest.mpd")
        try h.waitUntil(timeout: 60, "a few files verified") { ((try? h.status(token))?.segmentsDone ?? 0) >= 4 }
        h.kill9("scheduler")
        let verified = try h.verifiedPaths(token)
        #expect(verified.count >= 4, "files verified before the kill: \(verified)")
        try h.startScheduler(["--per-title", "2"])
        let final = try h.waitForFinal(token)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        for path in verified {
            let requests = h.originGets(path: path)
            #expect(requests == 1, "\(path) was fetched \(requests) times")
        }
        let video = try DASHMedia.referenceFrames(
            h.media, files: DASHMedia.templateFiles(h.media, stream: 0), stream: "v", name: "ref-v.mp4")
        try checkPlaysOffline(h, final, [("v", video)])
    }

    @Test func dynamicAndMalformedMPDsAreRefusedClearly() throws {
        let h = try start("dash-bad") { try DASHMedia.template(into: $0, timeline: true) }
        let mpd = try String(contentsOf: h.media.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        try mpd.replacingOccurrences(
            of: "type=\"static\"", with: "type=\"dynamic\" availabilityStartTime=\"2026-01-01T00:00:00Z\""
        )
        .write(to: h.media.appendingPathComponent("live.mpd"), atomically: true, encoding: .utf8)
        try mpd.replacingOccurrences(of: "bandwidth=\"200000\"", with: "")
            .write(to: h.media.appendingPathComponent("broken.mpd"), atomically: true, encoding: .utf8)
        for (file, words) in [("live.mpd", ["dynamic", "--record"]), ("broken.mpd", ["Representation", "bandwidth"])] {
            let token = try h.submit(file)
            let status = try h.waitForFinal(token)
            #expect(status.state == .failed)
            #expect(status.error?.code == .playlist, "\(String(describing: status.error))")
            for word in words {
                #expect(status.error?.message.contains(word) == true, "\(status.error?.message ?? "")")
            }
            #expect(status.notPlayableReason?.code == .failed)
        }
        #expect(h.originRequests(containing: "chunk-stream") == 0, "nothing of a refused MPD is fetched")
    }
}
