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

    /// A Clear Key content key and its key ID.
    struct Key {
        var kid: [UInt8]
        var key: [UInt8]
        var kidHex: String { Hex.encode(kid) }
        var keyHex: String { Hex.encode(key) }
    }

    /// ffmpeg's live-profile DASH of 6 s from `source` in `dir` (2 s segments, a 320x180 video and an audio,
    /// `$Number$` with `@duration`, or with a SegmentTimeline); its Representation ids become `<label>-video` and
    /// `<label>-audio` (files renamed with them). Returns its Period as Period `label` from `start` seconds for
    /// 6 s, with `<label>/` as its BaseURL. With `protect`, every file is encrypted in place (`cenc`, the clear
    /// ones kept in `<label>-clear/`) and each AdaptationSet signals the key ID and Clear Key at
    /// `license/clearkey` (relative to the MPD).
    func period(
        _ dir: URL, label: String, start: Int, source: String, timeline: Bool, protect: Key? = nil,
        widevineOnly: Bool = false
    ) throws -> String {
        try TestMedia.sh(
            """
            timeout 300 ffmpeg -nostdin -v error -y \(source) -t 6 -map 0:v -map 1:a \
              -c:v libx264 -preset ultrafast -g 25 -sc_threshold 0 -s 320x180 -b:v 200k -c:a aac -b:a 64k \
              -f dash -seg_duration 2 -use_template 1 -use_timeline \(timeline ? 1 : 0) \
              -adaptation_sets "id=0,streams=v id=1,streams=a" manifest.mpd
            for f in *stream0*; do mv "$f" "${f/stream0/stream\(label)-video}"; done
            for f in *stream1*; do mv "$f" "${f/stream1/stream\(label)-audio}"; done
            """, in: dir)
        if let protect { try encrypt(dir, with: protect) }
        let text = try String(contentsOf: dir.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        let element = try
            (text.range(of: "<Period").flatMap { open in
                text.range(of: "</Period>").map { String(text[open.lowerBound..<$0.upperBound]) }
            }).orThrow("no Period in ffmpeg's MPD")
        let renamed = element.replacingOccurrences(
            of: "<Representation id=\"0\"", with: "<Representation id=\"\(label)-video\""
        )
        .replacingOccurrences(of: "<Representation id=\"1\"", with: "<Representation id=\"\(label)-audio\"")
        .replacingOccurrences(
            of: "<Period id=\"0\" start=\"PT0.0S\">",
            with: "<Period id=\"\(label)\" start=\"PT\(start)S\" duration=\"PT6S\"><BaseURL>\(label)/</BaseURL>")
        #expect(renamed.contains("<BaseURL>\(label)/</BaseURL>") && renamed.contains("\(label)-video"), "\(renamed)")
        guard let protect else { return renamed + "\n" }
        let protection = """
            <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc" \
            cenc:default_KID="\(ClearKeyDASHTests.uuid(protect.kid))"/>
            <ContentProtection schemeIdUri="urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e" value="ClearKey1.0">\
            <clearkey:Laurl Lic_type="EME-1.0">license/clearkey</clearkey:Laurl></ContentProtection>
            """
        let widevine = """
            <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc" \
            cenc:default_KID="\(ClearKeyDASHTests.uuid(protect.kid))"/>
            <ContentProtection schemeIdUri="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed" value="Widevine"/>
            """
        var lines: [String] = []
        for line in renamed.split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append(String(line))
            if line.contains("<AdaptationSet ") { lines.append(widevineOnly ? widevine : protection) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Encrypts every `.m4s` of `dir` in place as a packager would (``CENCPackager``), keeping the clear files in
    /// `<dir>-clear/`.
    func encrypt(_ dir: URL, with k: Key) throws {
        let clear = dir.deletingLastPathComponent().appendingPathComponent(dir.lastPathComponent + "-clear")
        try FileManager.default.copyItem(at: dir, to: clear)
        let pssh = CENCPackager.pssh(systemID: ClearKeyDASHTests.clearKeySystem, kids: [k.kid])
        var seed: UInt64 = UInt64(k.kid[0])
        for name in try FileManager.default.contentsOfDirectory(atPath: clear.path) where name.hasSuffix(".m4s") {
            let bytes = [UInt8](try Data(contentsOf: clear.appendingPathComponent(name)))
            let sealed =
                name.hasPrefix("init-")
                ? try CENCPackager.encryptInit(bytes, kid: k.kid, pssh: [pssh])
                : try CENCPackager.encryptSegment(bytes, key: k.key, ivSeed: seed << 32)
            seed += 1
            try Data(sealed).write(to: dir.appendingPathComponent(name))
        }
    }

    /// The video frames of Period folder `label` as ffmpeg wrote them (`<label>-clear/` for an encrypted one).
    func sourceFrames(_ h: Harness, _ label: String, folder: String? = nil) throws -> [String] {
        let folder = folder ?? label
        let dir = h.media.appendingPathComponent(folder)
        let chunks = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasPrefix("chunk-stream\(label)-video-") }.sorted()
        return DASHMedia.hashes(
            try DASHMedia.referenceFrames(
                h.media, files: (["init-stream\(label)-video.m4s"] + chunks).map { "\(folder)/" + $0 }, stream: "v",
                name: "ref-\(label).mp4"))
    }

    /// Serves the finished title with `stowctl play`, the origin stopped, and returns each Period's video frames:
    /// the served manifest cut into one MPD per Period (the same elements, the Period starting at 0, the files
    /// named under the play server's URL). `extra`: ffmpeg's input options for each Period (a decryption key).
    func playedFramesByPeriod(
        _ h: Harness, _ status: TitleStatus, extra: [[String]] = [], originRunning: Bool = true
    ) throws -> [[String]] {
        if originRunning { #expect(h.terminate("origin") == 0) }
        let entry = originRunning ? try h.startPlay(status.token) : try playURL(h, status.token)
        #expect(entry.hasSuffix("/manifest.mpd"), "\(entry)")
        let served = try TestMedia.sh("curl -sf '\(entry)'", in: h.root)
        let base = String(entry.dropLast("manifest.mpd".count))
        var out: [[String]] = []
        for (n, match) in served.matches(of: /(?s)<Period [^>]*duration="([^"]+)"[^>]*>.*?<\/Period>/).enumerated() {
            let element = String(match.output.0).replacingOccurrences(
                of: #"start="[^"]+""#, with: #"start="PT0S""#, options: .regularExpression)
            let head = try (served.range(of: "<Period ").map { String(served[..<$0.lowerBound]) }).orThrow("no Period")
            let mpd =
                head.replacingOccurrences(
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

    /// The URL `stowctl play` printed for `token` (already started).
    func playURL(_ h: Harness, _ token: String) throws -> String {
        try String(contentsOf: h.root.appendingPathComponent("play-\(token).out"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
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
            try period(
                h.media.appendingPathComponent("a"), label: "a", start: 0, source: DASHMedia.source, timeline: false)
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

    /// A Clear Key live title whose key changes at its second Period (6 s): the first key from the license the
    /// recording starts with, the second acquired when the Period appears (by `submitArguments`: the MPD's
    /// Laurl, or `--key` pairs given for both Periods); both stored wrapped, handed to a player by `stowctl play`,
    /// and each Period decodes to its clear frames. Returns the final status and the harness.
    func recordKeyChange(_ name: String, serverKeys: Bool, submitArguments: (Key, Key) -> [String]) throws
        -> (Harness, TitleStatus)
    {
        let h = try Harness(name: name)
        let keys = (
            Key(kid: (0..<16).map { UInt8(0xA0 + $0) }, key: (0..<16).map { UInt8(0x40 + $0) }),
            Key(kid: (0..<16).map { UInt8(0xB0 + $0) }, key: (0..<16).map { UInt8(0x60 + $0) })
        )
        for label in ["a", "b"] {
            try FileManager.default.createDirectory(
                at: h.media.appendingPathComponent(label), withIntermediateDirectories: true)
        }
        let periods =
            try period(
                h.media.appendingPathComponent("a"), label: "a", start: 0, source: DASHMedia.source, timeline: true,
                protect: keys.0)
            + period(
                h.media.appendingPathComponent("b"), label: "b", start: 6, source: Self.second, timeline: true,
                protect: keys.1)
        try DASHMedia.mpd(
            duration: 12, periods: periods,
            namespaces: " xmlns:cenc=\"urn:mpeg:cenc:2013\" xmlns:clearkey=\"http://dashif.org/guidelines/clearKey\""
        ).write(to: h.media.appendingPathComponent("manifest.mpd"), atomically: true, encoding: .utf8)
        let table =
            serverKeys ? "\"\(keys.0.kidHex)\": \"\(keys.0.keyHex)\", \"\(keys.1.kidHex)\": \"\(keys.1.keyHex)\"" : ""
        try "{\"clearkeys\": {\(table)}}".write(
            to: h.media.appendingPathComponent("policy.json"), atomically: true, encoding: .utf8)
        try h.startPipeline()
        try h.startOrigin(extra: ["--live", "--license-policy", h.media.appendingPathComponent("policy.json").path])
        let token = try h.submit("manifest.mpd", ["--record"] + submitArguments(keys.0, keys.1))
        let final = try h.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.recordedSeconds == 12 && final.gaps == [], "\(final)")
        #expect(
            final.playableOffline && final.notPlayableReason == nil, "\(String(describing: final.notPlayableReason))")
        #expect(
            final.protection?.kids == [keys.0.kidHex, keys.1.kidHex],
            "both key IDs: \(String(describing: final.protection))")
        for k in [keys.0, keys.1] { try expectKeyNotAtRest(h, k.key, title: token, "a Period's key") }

        // The play server hands out both keys; each Period decodes with its own to the clear frames.
        #expect(h.terminate("origin") == 0)
        let expected = try [sourceFrames(h, "a", folder: "a-clear"), sourceFrames(h, "b", folder: "b-clear")]
        let entry = try h.startPlay(final.token)
        let port = try #require(URL(string: entry)?.port)
        let ids = [keys.0, keys.1].map {
            Data($0.kid).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let (code, answer) = try TestMedia.shOutput(
            "curl -sf -X POST -H 'Content-Type: application/json' -d '{\"kids\":[\"\(ids[0])\",\"\(ids[1])\"],"
                + "\"type\":\"temporary\"}' http://127.0.0.1:\(port)/clearkey", in: h.root)
        #expect(code == 0, "\(answer)")
        let handed = try JSONDecoder().decode(ClearKeyDASHTests.LicenseAnswer.self, from: Data(answer.utf8)).keys
        let hexes = try ids.map { id in
            Hex.encode(try #require(handed.first { $0.kid == id }.flatMap { ClearKeyDASHTests.base64url($0.k) }))
        }
        #expect(hexes == [keys.0.keyHex, keys.1.keyHex], "the title's two keys")
        let played = try playedFramesByPeriod(
            h, final, extra: hexes.map { ["-cenc_decryption_key", $0] }, originRunning: false)
        #expect(expected.map(\.count) == [150, 150])
        #expect(played == expected, "each Period decodes with its key to the clear frames")
        return (h, final)
    }

    @Test func aClearKeyLiveTitleWhoseKeyChangesAtAPeriodGetsTheNewKeyFromItsLaurl() throws {
        let (h, _) = try recordKeyChange("livedash-keychange", serverKeys: true) { _, _ in [] }
        #expect(h.originRequests(matching: "/clearkey") == 2, "a license for the first key, one for the second")
        #expect(h.log("scheduler").contains("recording entered a new Period"))
    }

    @Test func operatorKeysForBothPeriodsAreAppliedAsTheKeyChanges() throws {
        let (h, _) = try recordKeyChange("livedash-keychange-operator", serverKeys: false) { a, b in
            ["--key", "\(a.kidHex):\(a.keyHex)", "--key", "\(b.kidHex):\(b.keyHex)"]
        }
        #expect(h.originRequests(matching: "/clearkey") == 0, "no license server is asked")
    }

    /// A clear programme, then at 6 s a Period only a device's DRM (Widevine) can license: recorded on only with
    /// `--allow-device-drm`, and then stored but never playable here; without it the recording ends before that
    /// Period, saying why, and keeps the playable first Period. Two recordings of the same live presentation.
    @Test func aPeriodOnlyADeviceCanLicenseIsStoredOnlyWhenAllowedAndNeverPlayable() throws {
        let h = try Harness(name: "livedash-devicedrm")
        for label in ["a", "b"] {
            try FileManager.default.createDirectory(
                at: h.media.appendingPathComponent(label), withIntermediateDirectories: true)
        }
        let key = Key(kid: (0..<16).map { UInt8(0xC0 + $0) }, key: (0..<16).map { UInt8(0x20 + $0) })
        let periods =
            try period(
                h.media.appendingPathComponent("a"), label: "a", start: 0, source: DASHMedia.source, timeline: true)
            + period(
                h.media.appendingPathComponent("b"), label: "b", start: 6, source: Self.second, timeline: true,
                protect: key, widevineOnly: true)
        let mpd = DASHMedia.mpd(
            duration: 12, periods: periods, namespaces: " xmlns:cenc=\"urn:mpeg:cenc:2013\"")
        for name in ["manifest.mpd", "allowed.mpd"] {
            try mpd.write(to: h.media.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try h.startPipeline()
        try h.startOrigin(extra: ["--live"])
        let refused = try h.submit("manifest.mpd", ["--record"])
        let allowed = try h.submit("allowed.mpd", ["--record", "--allow-device-drm"])

        let kept = try h.waitForFinal(refused, timeout: 60)
        #expect(kept.state == .completed && kept.recordedSeconds == 6, "the first Period: \(kept)")
        #expect(kept.playableOffline && kept.protection == nil, "\(String(describing: kept.notPlayableReason))")
        let log = h.log("scheduler")
        #expect(log.contains("Period 1 of the recording is not recorded") && log.contains("--allow-device-drm"))
        #expect(!FileManager.default.fileExists(atPath: h.home.appendingPathComponent("titles/\(refused)/p1").path))

        let stored = try h.waitForFinal(allowed, timeout: 60)
        #expect(stored.state == .completed && stored.recordedSeconds == 12, "both Periods: \(stored)")
        #expect(!stored.playableOffline && stored.notPlayableReason?.code == .deviceLicenseRequired, "\(stored)")
        #expect(stored.protection?.deviceOnly == true && stored.protection?.kids == [key.kidHex])
        let (code, _) = try h.stowctl(["playable", allowed])
        #expect(code == 1, "never playable here")
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
