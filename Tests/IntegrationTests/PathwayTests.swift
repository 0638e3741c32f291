import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// The same media from several places (HLS content steering's pathways), with the real processes: two origins
/// serve the same folder as CDN-A and CDN-B, a third serves the master playlist (and the steering server's answer).
@Suite("Pathways")
struct PathwayTests {
    /// A master naming each variant and audio rendition on both CDNs (`PATHWAY-ID`), starting on `start`.
    static func master(a: String, b: String, start: String, server: String?) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n"
        text +=
            "#EXT-X-CONTENT-STEERING:" + (server.map { "SERVER-URI=\"\($0)\"," } ?? "") + "PATHWAY-ID=\"\(start)\"\n"
        for (name, base) in [("CDN-A", a), ("CDN-B", b)] {
            text += "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud-\(name)\",NAME=\"audio\",DEFAULT=YES,LANGUAGE=\"en\","
            text += "URI=\"\(base)vEnglish/index.m3u8\"\n"
            for (rate, size, folder) in [(545_600, "640x360", "v360p"), (1_865_600, "1280x720", "v720p")] {
                text += "#EXT-X-STREAM-INF:BANDWIDTH=\(rate),RESOLUTION=\(size),CODECS=\"avc1.42c01f,mp4a.40.2\","
                text += "AUDIO=\"aud-\(name)\",PATHWAY-ID=\"\(name)\"\n\(base)\(folder)/index.m3u8\n"
            }
        }
        return text
    }

    /// Files (their paths) the origin served with 200 or 206.
    static func served(_ origin: StartedOrigin, under folder: String) -> [String] {
        var paths: [String] = []
        for line in origin.requests() {
            let f = line.split(separator: " ").map(String.init)
            guard f.count > 3, f[1] == "GET", f[2].hasPrefix("/\(folder)/seg"), ["200", "206"].contains(f[3]) else {
                continue
            }
            paths.append(f[2])
        }
        return paths
    }

    /// The number of segments of the source's media playlist in `folder`.
    static func segments(_ h: Harness, _ folder: String) throws -> Int {
        let text = try String(contentsOf: h.media.appendingPathComponent("\(folder)/index.m3u8"), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.count
    }

    /// The most attempts any file of the title took (0: every file came at its first try).
    static func mostAttempts(_ h: Harness, _ token: String) throws -> Int {
        let store = h.home.appendingPathComponent("stowage.sqlite").path
        let (_, out) = try TestMedia.shOutput(
            "sqlite3 '\(store)' \"SELECT max(attempts) FROM resource WHERE token = '\(token)'\"", in: h.root)
        return Int(out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// CDN-A (where the master starts, slow) is stopped as soon as the title is planned, its first files still
    /// coming: every file comes from CDN-B within its first attempt (no file fails, the title never waits for the
    /// network), the offline copy equals the source, and status says CDN-B served.
    @Test func aPathwayWhoseHostIsDownIsSkippedAndTheTitleCompletesFromTheNext() throws {
        let h = try Harness(name: "pathway-down")
        try h.makeSample(seconds: 12)
        try h.startOrigin()
        let a = try h.startOrigin(named: "cdna", extra: ["--throttle-bps", "20000"])
        let b = try h.startOrigin(named: "cdnb")
        try Self.master(a: a.url, b: b.url, start: "CDN-A", server: nil)
            .write(to: h.media.appendingPathComponent("steered.m3u8"), atomically: true, encoding: .utf8)
        try h.startPipeline()
        let token = try h.submit("steered.m3u8", ["--bitrate", "2000000"])
        var planned: TitleStatus?
        try h.waitUntil(timeout: 30, "the title planned") {
            planned = try? h.status(token)
            return (planned?.segmentsTotal ?? 0) > 0
        }
        #expect(planned?.pathways == ["CDN-A", "CDN-B"], "\(String(describing: planned?.pathways))")
        #expect(planned?.pathway == "CDN-A")
        #expect(h.terminate("cdna") == 0)
        let final = try h.waitForFinal(token, timeout: 90)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.pathway == "CDN-B", "\(String(describing: final.pathway))")
        #expect(try Self.mostAttempts(h, token) == 0, "a down pathway costs no file an attempt")
        #expect(Self.served(b, under: "v720p").count == (try Self.segments(h, "v720p")))
        #expect(Self.served(b, under: "vEnglish").count == (try Self.segments(h, "vEnglish")))
        let dir = URL(fileURLWithPath: try #require(final.localPlaylist)).deletingLastPathComponent()
        #expect(
            try OfflineCopy.compare(
                localMedia: dir.appendingPathComponent("video/index.m3u8"),
                originMedia: h.media.appendingPathComponent("v720p/index.m3u8")) == (try Self.segments(h, "v720p")))
        #expect(h.log("scheduler").contains("come from another pathway"))
        let (_, text) = try h.stowctl(["status", token])
        #expect(text.contains("pathway:    CDN-B (tried in order: CDN-A, CDN-B)"), "\(text)")
    }

    /// The steering server (`SERVER-URI`) puts CDN-B first though the tag starts on CDN-A: every file comes from
    /// CDN-B, CDN-A gives only its playlists (to line its files up as alternates).
    @Test func theSteeringServersPriorityChoosesWhereFilesComeFrom() throws {
        let h = try Harness(name: "pathway-steer")
        try h.makeSample(seconds: 12)
        try h.startOrigin()
        let a = try h.startOrigin(named: "cdna")
        let b = try h.startOrigin(named: "cdnb")
        try Self.master(a: a.url, b: b.url, start: "CDN-A", server: "steer.json")
            .write(to: h.media.appendingPathComponent("steered.m3u8"), atomically: true, encoding: .utf8)
        try #"{"VERSION": 1, "TTL": 300, "PATHWAY-PRIORITY": ["CDN-B", "CDN-A"]}"#
            .write(to: h.media.appendingPathComponent("steer.json"), atomically: true, encoding: .utf8)
        try h.startPipeline()
        let token = try h.submit("steered.m3u8", ["--bitrate", "2000000"])
        let final = try h.waitForFinal(token, timeout: 90)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.pathways == ["CDN-B", "CDN-A"] && final.pathway == "CDN-B")
        #expect(Self.served(b, under: "v720p").count == (try Self.segments(h, "v720p")))
        #expect(Self.served(a, under: "v720p").isEmpty && Self.served(a, under: "vEnglish").isEmpty)
        #expect(h.originGets(path: "/steer.json") == 1)
    }

    /// DASH: the MPD names two BaseURLs (`serviceLocation` alpha on A, slow, and beta on B); A stops once the title
    /// is planned, and every file comes from beta within its first attempt.
    @Test func aDASHServiceLocationWhoseHostIsDownIsSkipped() throws {
        let h = try Harness(name: "pathway-dash")
        try FileManager.default.createDirectory(at: h.media, withIntermediateDirectories: true)
        try DASHMedia.template(into: h.media, timeline: true)
        try h.startOrigin()
        let a = try h.startOrigin(named: "cdna", extra: ["--throttle-bps", "20000"])
        let b = try h.startOrigin(named: "cdnb")
        var mpd = try String(contentsOf: h.media.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        let places =
            "<BaseURL serviceLocation=\"alpha\">\(a.url)</BaseURL>\n"
            + "\t<BaseURL serviceLocation=\"beta\">\(b.url)</BaseURL>\n\t<Period"
        mpd = mpd.replacingOccurrences(of: "<Period", with: places)
        try mpd.write(to: h.media.appendingPathComponent("steered.mpd"), atomically: true, encoding: .utf8)
        try h.startPipeline()
        let token = try h.submit("steered.mpd")
        var planned: TitleStatus?
        try h.waitUntil(timeout: 30, "the title planned") {
            planned = try? h.status(token)
            return (planned?.segmentsTotal ?? 0) > 0
        }
        #expect(planned?.pathways == ["alpha", "beta"], "\(String(describing: planned?.pathways))")
        #expect(h.terminate("cdna") == 0)
        let final = try h.waitForFinal(token, timeout: 90)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.pathway == "beta", "\(String(describing: final.pathway))")
        #expect(try Self.mostAttempts(h, token) == 0, "a down place costs no file an attempt")
        let fromB = b.requests().filter { $0.contains(" GET /chunk-stream0-") && $0.contains(" 200 ") }.count
        #expect(fromB == (try DASHMedia.templateFiles(h.media, stream: 0).count - 1), "every video chunk from beta")
    }
}
