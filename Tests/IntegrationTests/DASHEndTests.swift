import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// DASH addressing that describes more than the presentation holds (packagers that write whole fragments), and
/// durations of titles of several Periods, through the whole pipeline and `stowctl estimate` / `variants`.
@Suite("DASH presentation end", .serialized)
struct DASHEndTests {
    /// ffmpeg's 6 s of video (three 2 s segments, `chunk-stream0-0000{1,2,3}.m4s`) under hand-written MPDs that
    /// describe 10 s: a SegmentTimeline of five segments, and `$Number$` with `@duration` up to `endNumber` 5.
    /// The origin answers 404 for segments 4 and 5, which do not exist.
    @Test func addressingLongerThanThePresentationStopsAtItsEnd() throws {
        let h = try Harness(name: "dash-end")
        try DASHMedia.template(into: h.media, timeline: true)
        let ffmpegMPD = try String(contentsOf: h.media.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        let timescale = try #require(
            ffmpegMPD.firstMatch(of: /timescale="(\d+)"/).map { String($0.1) }, "ffmpeg's MPD names a timescale")
        let twoSeconds = try #require(Int(timescale)) * 2
        let forms = [
            ("timeline.mpd", "<SegmentTimeline><S t=\"0\" d=\"\(twoSeconds)\" r=\"4\"/></SegmentTimeline>", ""),
            ("number.mpd", "", " duration=\"\(twoSeconds)\" endNumber=\"5\""),
        ]
        for (name, timeline, attributes) in forms {
            let set = """
                  <Period id="0">
                    <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.42c00d">
                      <Representation id="0" bandwidth="200000" width="320" height="180">
                        <SegmentTemplate timescale="\(timescale)" initialization="init-stream$RepresentationID$.m4s" \
                media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="1"\(attributes)>\(timeline)
                        </SegmentTemplate>
                      </Representation>
                    </AdaptationSet>
                  </Period>

                """
            try DASHMedia.mpd(duration: 6, periods: set)
                .write(to: h.media.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try h.startOrigin()
        try h.startPipeline()
        for (name, _, _) in forms {
            let (code, out) = try h.stowctl(["estimate", h.originURL + name, "--json"])
            #expect(code == 0, "\(out)")
            let estimate = try JSONDecoder().decode(EstimateJSON.self, from: Data(out.utf8))
            #expect(abs(estimate.durationSeconds - 6) < 0.01, "\(name): 6 s, not the 10 s it describes: \(out)")
            #expect(estimate.files == 1 + 3, "\(name): init and three segments")
        }
        let video = try DASHMedia.referenceFrames(
            h.media, files: DASHMedia.templateFiles(h.media, stream: 0), stream: "v", name: "ref-v.mp4")
        var statuses: [TitleStatus] = []
        for (name, _, _) in forms {
            let status = try h.waitForFinal(try h.submit(name), timeout: 120)
            #expect(status.state == .completed, "\(name): \(String(describing: status.error))")
            #expect(status.segmentsTotal == 1 + 3, "\(name): init and the three segments inside the presentation")
            statuses.append(status)
        }
        for n in 1...5 {
            let path = "/chunk-stream0-0000\(n).m4s"
            #expect(h.originGets(path: path) == (n <= 3 ? 2 : 0), "\(path), once per title, never past the end")
        }
        for status in statuses {
            let entry = try h.startPlay(status.token)
            let played = DASHMedia.hashes(try OfflineCopy.framemd5(entry, stream: "v"))
            #expect(played.count > 50 && played == DASHMedia.hashes(video), "plays as the origin's, frame for frame")
        }
    }

    /// ffmpeg's 6 s Period twice (from `a/` and `b/`): `estimate` reports 12 s, not the first Period's 6 s; a
    /// trick-mode AdaptationSet is listed by `variants` as one, and is not what `estimate` plans.
    @Test func multiPeriodEstimateAndTrickModeVariants() throws {
        let h = try Harness(name: "dash-periods-estimate")
        try DASHMedia.template(into: h.media.appendingPathComponent("a"), timeline: true)
        try TestMedia.sh("cp -r a b", in: h.media)
        let ffmpegMPD = try String(contentsOf: h.media.appendingPathComponent("a/manifest.mpd"), encoding: .utf8)
        let period = try #require(
            ffmpegMPD.range(of: "<Period").flatMap { start in
                ffmpegMPD.range(of: "</Period>").map { String(ffmpegMPD[start.lowerBound..<$0.upperBound]) }
            })
        let trick = """
            <AdaptationSet contentType="video" mimeType="video/mp4" maxFrameRate="1">
                  <SupplementalProperty schemeIdUri="http://dashif.org/guidelines/trickmode" value="0"/>
                  <Representation id="trick" bandwidth="20000" width="160" height="90" codecs="avc1.42c00d">
                    <SegmentTemplate timescale="1000" duration="2000" media="trick-$Number$.m4s"/>
                  </Representation>
                </AdaptationSet>
            """
        var periods = ""
        for (n, folder) in ["a", "b"].enumerated() {
            periods += period.replacingOccurrences(
                of: "<Period id=\"0\" start=\"PT0.0S\">",
                with: "<Period id=\"\(folder)\" start=\"PT\(n * 6)S\"><BaseURL>\(folder)/</BaseURL>\(trick)")
            periods += "\n"
        }
        #expect(periods.contains("<BaseURL>b/</BaseURL>"), "ffmpeg's Period opens as expected")
        try DASHMedia.mpd(duration: 12, periods: periods)
            .write(to: h.media.appendingPathComponent("manifest.mpd"), atomically: true, encoding: .utf8)
        try h.startOrigin()
        let (code, out) = try h.stowctl(["estimate", h.originURL + "manifest.mpd", "--json"])
        #expect(code == 0, "\(out)")
        let estimate = try JSONDecoder().decode(EstimateJSON.self, from: Data(out.utf8))
        #expect(abs(estimate.durationSeconds - 12) < 0.1, "both Periods: \(out)")
        #expect(estimate.files == 2 * 9, "each Period's lowest main video and its audio, no trick-mode files")
        let (variantsCode, variantsOut) = try h.stowctl(["variants", h.originURL + "manifest.mpd", "--json"])
        #expect(variantsCode == 0, "\(variantsOut)")
        let report = try JSONDecoder().decode(VariantsJSON.self, from: Data(variantsOut.utf8))
        #expect(report.variants.filter { $0.trickMode == true }.map(\.uri) == ["a/0/trick", "b/0/trick"])
        #expect(report.variants.filter { $0.trickMode == false }.count == 4, "two main videos in each Period")
        let (_, text) = try h.stowctl(["variants", h.originURL + "manifest.mpd"])
        #expect(text.split(separator: "\n").filter { $0.contains("trick-mode") }.count == 2, "\(text)")
    }

    /// What the tests read of `estimate --json`.
    struct EstimateJSON: Decodable {
        var durationSeconds: Double
        var files: Int
    }

    /// What the tests read of `variants --json`.
    struct VariantsJSON: Decodable {
        struct Variant: Decodable {
            var uri: String
            var trickMode: Bool?
        }
        var variants: [Variant]
    }
}
