import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// `submit --range`: a 40 s title made by ffmpeg in 2 s segments, clipped to 10–20 s, fetches only the segments
/// that overlap the range (the origin's access log says so), completes, reports the span it stored, and plays
/// offline through `stowctl play` frame for frame as the source over that span. HLS and DASH alike.
@Suite("Clips", .serialized)
struct ClipTests {
    /// Frames of the 25 fps source in 10–20 s.
    static let span = 250..<500

    /// A 40 s HLS media playlist of MPEG-TS segments `seg000.ts`…`seg019.ts`, a key frame every 2 s.
    static func hls(into dir: URL) throws {
        try TestMedia.sh(
            """
            timeout 300 ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=320x180:rate=25 \
              -f lavfi -i sine=frequency=440:sample_rate=48000 -t 40 -c:v libx264 -preset ultrafast -g 50 \
              -keyint_min 50 -sc_threshold 0 -c:a aac -b:a 64k -f hls -hls_time 2 -hls_playlist_type vod \
              -hls_segment_filename 'seg%03d.ts' index.m3u8
            """, in: dir)
    }

    func start(_ name: String, _ make: (URL) throws -> Void) throws -> Harness {
        let h = try Harness(name: name)
        try make(h.media)
        try h.startOrigin()
        try h.startPipeline()
        return h
    }

    @Test func hlsClipFetchesOnlyItsSegmentsAndPlaysThem() throws {
        let h = try start("clip-hls", Self.hls)
        let source = DASHMedia.hashes(try OfflineCopy.framemd5(h.media.appendingPathComponent("index.m3u8").path))
        #expect(source.count == 1_000, "40 s at 25 fps: \(source.count)")
        // estimate --range names what submit --range fetches.
        let (estimateCode, estimateOut) = try h.stowctl([
            "estimate", h.originURL + "index.m3u8", "--range", "10-20", "--json",
        ])
        #expect(estimateCode == 0, "\(estimateOut)")
        let estimate = try JSONDecoder().decode(EstimateReport.self, from: Data(estimateOut.utf8))
        #expect(estimate.files == 5 && estimate.range == ClipRange(from: 10, to: 20), "\(estimateOut)")
        #expect(h.originRequests(containing: "seg0") == 5, "estimate asks only the clip's segments their size")

        let token = try h.submit("index.m3u8", ["--range", "00:00:10-00:00:20"])
        let status = try h.waitForFinal(token)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        #expect(status.range == ClipRange(from: 10, to: 20), "\(String(describing: status.range))")
        #expect(status.segmentsTotal == estimate.files)
        for n in 0..<20 {
            let fetched = h.originGets(path: "/seg\(String(format: "%03d", n)).ts")
            #expect(fetched == ((5...9).contains(n) ? 1 : 0), "seg\(n): fetched \(fetched) times")
        }
        // Another range for the same URL is refused, naming it; the range outlives a restart of the scheduler.
        let again = try h.stowctlStreams(["submit", h.originURL + "index.m3u8", "--range", "0-10"])
        #expect(again.status == 1 && again.stderr.contains("--range 0-10, not 10-20"), "\(again.stderr)")
        #expect(h.terminate("scheduler") == 0)
        try h.startScheduler()
        try h.waitUntil(timeout: 20, "the scheduler answers") { (try? h.status(token)) != nil }
        #expect(try h.status(token).range == ClipRange(from: 10, to: 20))

        #expect(h.terminate("origin") == 0)
        let entry = try h.startPlay(token)
        let played = DASHMedia.hashes(try OfflineCopy.framemd5(entry))
        #expect(played == Array(source[Self.span]), "the clip plays as the source's frames 250..<500")
        let local = try String(contentsOfFile: try #require(status.localPlaylist), encoding: .utf8)
        #expect(local.contains("#EXT-X-MEDIA-SEQUENCE:5"), "\(local)")
    }

    @Test func dashClipFetchesOnlyItsSegmentsAndPlaysThem() throws {
        let h = try start("clip-dash") { try DASHMedia.template(into: $0, timeline: true, seconds: 40) }
        let files = try DASHMedia.templateFiles(h.media, stream: 0)
        #expect(files.count == 21, "init + 20 segments of 2 s: \(files.count)")
        let source = DASHMedia.hashes(
            try DASHMedia.referenceFrames(h.media, files: files, stream: "v", name: "reference-video.mp4"))
        let token = try h.submit("manifest.mpd", ["--range", "10-20"])
        let status = try h.waitForFinal(token)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        #expect(status.range == ClipRange(from: 10, to: 20), "\(String(describing: status.range))")
        for n in 1...20 {
            let fetched = h.originRequests(matching: "chunk-stream0-\(String(format: "%05d", n)).m4s")
            #expect(fetched == ((6...10).contains(n) ? 1 : 0), "video segment \(n): fetched \(fetched) times")
        }
        #expect(h.originRequests(containing: "chunk-stream2-") < 20, "the audio is cut too")
        #expect(h.terminate("origin") == 0)
        let entry = try h.startPlay(token)
        let played = DASHMedia.hashes(try OfflineCopy.framemd5(entry, stream: "v"))
        #expect(played == Array(source[Self.span]), "the clip plays as the source's frames 250..<500")
    }

    @Test func aRangeWithARecordingOrPastTheEndIsRefusedNamingWhy() throws {
        let h = try start("clip-refusals", Self.hls)
        let record = try h.stowctlStreams(["submit", h.originURL + "index.m3u8", "--range", "10-20", "--record"])
        #expect(record.status == 2 && record.stderr.contains("--record records a live stream"), "\(record.stderr)")
        let bad = try h.stowctlStreams(["submit", h.originURL + "index.m3u8", "--range", "20-10"])
        #expect(bad.status == 2 && bad.stderr.contains("end must come after its start"), "\(bad.stderr)")
        let token = try h.submit("index.m3u8", ["--range", "50-60"])
        let status = try h.waitForFinal(token)
        #expect(
            status.state == .failed && status.error?.message.contains("40 s long") == true,
            "\(String(describing: status.error))")
        #expect(h.originRequests(containing: "seg0") == 0, "nothing of a refused clip is fetched")
    }
}
