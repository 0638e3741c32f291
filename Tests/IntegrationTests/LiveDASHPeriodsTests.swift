import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Recording live DASH across Periods: `stowage-origin serve --live` serves a static MPD of two Periods (each
/// ffmpeg's, from folders `a/` and `b/`, with their own Period and Representation ids) as a live presentation
/// whose second Period appears when the origin's clock reaches its start, as an ad break or a programme change
/// does. ffmpeg 5.1 plays only one Period of an MPD, so the offline copy is played Period by Period: each Period
/// of the local manifest, served by `stowctl play`, as an MPD of its own.
@Suite("Recording live DASH across Periods", .serialized)
struct LiveDASHPeriodsTests {
    static let second = "-f lavfi -i testsrc=size=640x360:rate=25 -f lavfi -i sine=frequency=880:sample_rate=48000"

    /// ffmpeg's live-profile DASH of 6 s from `source` in `dir` (2 s segments, a 320x180 video and an audio,
    /// `$Number$` with `@duration`, or with a SegmentTimeline); its Representation ids become `<label>-video` and
    /// `<label>-audio` (files renamed with them). Returns its Period as Period `label` from `start` seconds for
    /// 6 s, with `<label>/` as its BaseURL.
    func period(_ dir: URL, label: String, start: Int, source: String, timeline: Bool) throws -> String {
        try TestMedia.sh(
            """
            timeout 300 ffmpeg -nostdin -v error -y \(source) -t 6 -map 0:v -map 1:a \
              -c:v libx264 -preset ultrafast -g 25 -sc_threshold 0 -s 320x180 -b:v 200k -c:a aac -b:a 64k \
              -f dash -seg_duration 2 -use_template 1 -use_timeline \(timeline ? 1 : 0) \
              -adaptation_sets "id=0,streams=v id=1,streams=a" manifest.mpd
            for f in *stream0*; do mv "$f" "${f/stream0/stream\(label)-video}"; done
            for f in *stream1*; do mv "$f" "${f/stream1/stream\(label)-audio}"; done
            """, in: dir)
        let text = try String(contentsOf: dir.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        let element = try (text.range(of: "<Period").flatMap { open in
            text.range(of: "</Period>").map { String(text[open.lowerBound..<$0.upperBound]) }
        }).orThrow("no Period in ffmpeg's MPD")
        let renamed = element.replacingOccurrences(of: "<Representation id=\"0\"", with: "<Representation id=\"\(label)-video\"")
            .replacingOccurrences(of: "<Representation id=\"1\"", with: "<Representation id=\"\(label)-audio\"")
            .replacingOccurrences(
                of: "<Period id=\"0\" start=\"PT0.0S\">",
                with: "<Period id=\"\(label)\" start=\"PT\(start)S\" duration=\"PT6S\"><BaseURL>\(label)/</BaseURL>")
        #expect(renamed.contains("<BaseURL>\(label)/</BaseURL>") && renamed.contains("\(label)-video"), "\(renamed)")
        return renamed + "\n"
    }

    /// The video frames of Period folder `label` as ffmpeg wrote them.
    func sourceFrames(_ h: Harness, _ label: String) throws -> [String] {
        let dir = h.media.appendingPathComponent(label)
        let chunks = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasPrefix("chunk-stream\(label)-video-") }.sorted()
        return DASHMedia.hashes(
            try DASHMedia.referenceFrames(
                h.media, files: (["init-stream\(label)-video.m4s"] + chunks).map { "\(label)/" + $0 }, stream: "v",
                name: "ref-\(label).mp4"))
    }

    /// Serves the finished title with `stowctl play`, the origin stopped, and returns each Period's video frames:
    /// the served manifest cut into one MPD per Period (the same elements, the Period starting at 0, the files
    /// named under the play server's URL). `extra`: ffmpeg's input options for each Period (a decryption key).
    func playedFramesByPeriod(_ h: Harness, _ status: TitleStatus, extra: [[String]] = []) throws -> [[String]] {
        #expect(h.terminate("origin") == 0)
        let entry = try h.startPlay(status.token)
        #expect(entry.hasSuffix("/manifest.mpd"), "\(entry)")
        let served = try TestMedia.sh("curl -sf '\(entry)'", in: h.root)
        let base = String(entry.dropLast("manifest.mpd".count))
        var out: [[String]] = []
        for (n, match) in served.matches(of: /(?s)<Period [^>]*duration="([^"]+)"[^>]*>.*?<\/Period>/).enumerated() {
            let element = String(match.output.0).replacingOccurrences(
                of: #"start="[^"]+""#, with: #"start="PT0S""#, options: .regularExpression)
            let head = try (served.range(of: "<Period ").map { String(served[..<$0.lowerBound]) }).orThrow("no Period")
            let mpd = head.replacingOccurrences(
                of: #"mediaPresentationDuration="[^"]+""#, with: "mediaPresentationDuration=\"\(match.output.1)\"",
                options: .regularExpression)
                + "  <BaseURL>\(base)</BaseURL>\n  " + element + "\n</MPD>\n"
            let file = h.root.appendingPathComponent("period-\(n).mpd")
            try mpd.write(to: file, atomically: true, encoding: .utf8)
            let options = extra.indices.contains(n) ? extra[n] : []
            out.append(DASHMedia.hashes(try OfflineCopy.framemd5(file.path, stream: "v", extra: options)))
        }
        return out
    }

    /// The origin's clock as its `/live-time` says it, seconds since 1970.
    func originTime(_ h: Harness) throws -> Double {
        let text = try TestMedia.sh("curl -sf '\(h.originURL)live-time'", in: h.root)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return try (parser.date(from: text) ?? ISO8601DateFormatter().date(from: text)).orThrow("'\(text)'")
            .timeIntervalSince1970
    }

    @Test func aPeriodChangeMidRecordingSurvivesAKillAndPlaysBothPeriodsAsTheSource() throws {
        let h = try Harness(name: "livedash-periods")
        for label in ["a", "b"] {
            try FileManager.default.createDirectory(
                at: h.media.appendingPathComponent(label), withIntermediateDirectories: true)
        }
        // The programme (`$Number$` with `@duration`), then at 6 s another with other ids (a SegmentTimeline).
        let periods =
            try period(h.media.appendingPathComponent("a"), label: "a", start: 0, source: DASHMedia.source, timeline: false)
            + period(h.media.appendingPathComponent("b"), label: "b", start: 6, source: Self.second, timeline: true)
        try DASHMedia.mpd(duration: 12, periods: periods)
            .write(to: h.media.appendingPathComponent("manifest.mpd"), atomically: true, encoding: .utf8)
        try h.startPipeline()
        try h.startOrigin(extra: ["--live", "--live-window", "6"])
        let live = try TestMedia.sh("curl -sf '\(h.originURL)manifest.mpd'", in: h.root)
        #expect(live.contains("type=\"dynamic\"") && live.contains("<Period id=\"a\"") && !live.contains("id=\"b\""))
        let token = try h.submit("manifest.mpd", ["--record"])
        try h.waitUntil(timeout: 40, "a segment recorded") { (try h.status(token).recordedSeconds ?? 0) >= 2 }
        // The scheduler is down while the Period changes: back 4 s later, in the second Period, inside the window.
        h.kill9("scheduler")
        let killedAt = try originTime(h)
        try h.waitUntil(timeout: 30, "the second Period to begin and the stream to move on 4 s") {
            let mpd = try TestMedia.sh("curl -sf '\(h.originURL)manifest.mpd'", in: h.root)
            let elapsed = try originTime(h) - killedAt
            return mpd.contains("<Period id=\"b\"") && elapsed >= 4
        }
        try h.startScheduler()
        let final = try h.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.recordedSeconds == 12 && final.gaps == [], "both Periods, nothing missed: \(final)")
        #expect(segment404s(h).isEmpty, "nothing asked for before it existed: \(segment404s(h))")
        #expect(h.log("scheduler").contains("recording entered a new Period"), "\(h.log("scheduler").suffix(3_000))")
        let manifest = try String(contentsOfFile: try #require(final.localPlaylist), encoding: .utf8)
        #expect(manifest.contains(#"<Period id="a" start="PT0.000S" duration="PT6.000S">"#), "\(manifest)")
        #expect(manifest.contains(#"<Period id="b" start="PT6.000S" duration="PT6.000S">"#), "\(manifest)")
        #expect(manifest.contains("p1/video-0-0/seg-$Number%05d$.m4s") && !manifest.contains(h.originURL))
        let expected = try [sourceFrames(h, "a"), sourceFrames(h, "b")]
        #expect(expected.map(\.count) == [150, 150] && expected[0] != expected[1])
        #expect(try playedFramesByPeriod(h, final) == expected, "each Period plays as its source, frame for frame")
    }

    /// Requests the origin answered 404 for media segments.
    func segment404s(_ h: Harness) -> [String] {
        let log = (try? String(contentsOf: h.root.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").map(String.init).filter {
            let f = $0.split(separator: " ")
            return f.count > 3 && f[2].contains("chunk-") && f[3] == "404"
        }
    }
}
