import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// The library as the people watching see it (issue #47), in a real headless Chromium against the real
/// processes: a device sees only what it can play (a failed and a waiting title are on neither `/`, `/api/titles`
/// nor `/events`), each with a poster taken from the title, its duration and its license in the box's local time;
/// and it plays a title with French subtitles chosen on the play page.
@Suite("Library page")
struct LibraryPageTests {
    /// The box's time zone in these tests: far from UTC, so a raw UTC time would show.
    static let zone = "Asia/Tokyo"

    /// A multi-language title (audio en, de; subtitles en, fr) downloaded with all its languages.
    static func boxWithATitle(_ name: String) throws -> (Harness, String) {
        let h = try Harness(name: name)
        try TestMedia.multiLanguage(into: h.media.appendingPathComponent("ml"), seconds: 8)
        try "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:two seconds,\nseg0.ts\n#EXT-X-ENDLIST\n".write(
            to: h.media.appendingPathComponent("bad.m3u8"), atomically: true, encoding: .utf8)
        try h.startOrigin()
        try h.startPipeline()
        return (h, h.originURL)
    }

    @Test func aDeviceSeesOnlyPlayableTitlesWithPosterDurationAndLocalTimes() throws {
        let (h, _) = try Self.boxWithATitle("libpage-device")
        let gateway = try h.startGateway(address: "127.0.0.1", environment: ["TZ": Self.zone])
        let secret = try h.addDevice("tablet")
        // Both event streams open before any title exists: every event of every title passes them.
        let deviceEvents = h.root.appendingPathComponent("device-events.out")
        let adminEvents = h.root.appendingPathComponent("admin-events.out")
        for (name, bearer, file) in [
            ("device-events", secret, deviceEvents), ("admin-events", "admin-secret-for-tests", adminEvents),
        ] {
            try h.spawn(
                name, "/usr/bin/curl", ["-sN", "-H", "Authorization: Bearer \(bearer)", gateway + "/events"],
                stdout: file)
        }
        try h.waitUntil(timeout: 20, "the event streams to open") {
            [deviceEvents, adminEvents].allSatisfy {
                ((try? String(contentsOf: $0, encoding: .utf8)) ?? "").contains(": stowage events")
            }
        }
        // Waiting: its own fill window opens in three hours, local time of the box.
        let format = DateFormatter()
        format.dateFormat = "HH:mm"
        let window = format.string(from: Date() + 3 * 3600) + "-" + format.string(from: Date() + 4 * 3600)
        let playable = try h.submit(
            "ml/master.m3u8", ["--name", "Le voyage", "--audio", "en,de", "--subtitles", "all", "--rental", "2h"])
        let failed = try h.submit("bad.m3u8", ["--name", "Broken lecture"])
        let waiting = try h.submit("ml/high/index.m3u8", ["--name", "Evening film", "--window", window])
        #expect(try h.waitForFinal(playable).state == .completed)
        #expect(try h.waitForFinal(failed).state == .failed)
        try h.waitUntil(timeout: 30, "the evening film to wait for its window") {
            try h.status(waiting).suspendedReason == .window
        }

        // The API: the device gets the playable title only; the admin every title (the console's view).
        func titles(_ bearer: String) throws -> [[String: Any]] {
            let (_, body) = try TestMedia.shOutput(
                "curl -s -H 'Authorization: Bearer \(bearer)' \(gateway)/api/titles", in: h.root)
            return try #require(
                try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [[String: Any]], "\(body)")
        }
        #expect(
            Set(try titles("admin-secret-for-tests").compactMap { $0["token"] as? String }).isSuperset(of: [
                playable, failed, waiting,
            ]))
        var entry: [String: Any] = [:]
        let asked = Date()
        try h.waitUntil(timeout: 30, "a poster taken from a frame of the title") {
            let seen = try titles(secret)
            entry = seen.first ?? [:]
            return seen.count == 1 && entry["poster"] is String
        }
        let posterDelay = Int(Date().timeIntervalSince(asked) * 1000)
        print("[measure] libpage-device: poster frame listed \(posterDelay) ms after asked")
        #expect(entry["token"] as? String == playable && entry["shelf"] as? String == "playable")
        let poster = try #require(entry["poster"] as? String)
        #expect(poster == "/titles/\(playable)/frame.jpg")
        let picture = h.root.appendingPathComponent("poster.jpg")
        _ = try TestMedia.shOutput(
            "curl -s -o \(picture.path) -H 'Authorization: Bearer \(secret)' \(gateway)\(poster)", in: h.root)
        #expect(try Data(contentsOf: picture).prefix(3) == Data([0xFF, 0xD8, 0xFF]), "a JPEG frame")
        let facts = try #require(entry["facts"] as? [String: Any])
        #expect(abs((facts["durationSeconds"] as? Double ?? 0) - 8) < 0.5, "\(facts)")
        #expect(facts["audio"] as? [String] == ["en", "de"] && facts["subtitles"] as? [String] == ["en", "fr"])

        // The audio choice: the master narrowed to German, for a player that offers no choice of its own.
        let (_, german) = try TestMedia.shOutput(
            "curl -s -H 'Authorization: Bearer \(secret)' \(gateway)/titles/\(playable)/master-audio-de.m3u8",
            in: h.root)
        #expect(
            german.contains("LANGUAGE=\"de\",URI=\"audio-de/index.m3u8\",DEFAULT=YES") && !german.contains("audio-en/")
                && !german.contains("SUBTITLES"), "\(german)")

        // The license in the box's local time, in words.
        let expires = try #require(try h.status(playable).license?.expiresAt)
        let local = try #require(TimeZone(identifier: Self.zone))
        let iso = ISO8601DateFormatter()
        let expiry = try #require(
            iso.date(from: expires)
                ?? {
                    iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                    return iso.date(from: expires)
                }())
        format.timeZone = local
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = local
        let day = calendar.isDate(expiry, inSameDayAs: Date()) ? "today" : "tomorrow"
        let words = "available until \(day) \(format.string(from: expiry))"
        #expect(entry["licenseText"] as? String == words)

        // The page, in Chromium, as the tablet opens it from a signed link.
        let (_, signed) = try h.stowctl(["devices", "sign", "tablet", "/", "--expires", "10m"])
        let page = signed.trimmingCharacters(in: .whitespacesAndNewlines)
        let dom = try Self.chromium(["--timeout=5000", "--dump-dom", page], in: h)
        #expect(dom.contains("data-token=\"\(playable)\"") && dom.contains("Le voyage"), "\(dom.prefix(2000))")
        for hidden in [failed, waiting, "Broken lecture", "Evening film", "bad.m3u8"] {
            #expect(!dom.contains(hidden), "the library shows \(hidden) to a device")
        }
        #expect(dom.contains("<img class=\"poster\" src=\"\(poster)\""))
        #expect(dom.contains("data-duration=\"8\"") && dom.contains("8 s ·"), "the duration is shown")
        #expect(dom.contains(words), "the license in local time: \(words)")
        #expect(!dom.contains(expires) && !dom.contains("License: none"))
        #expect(dom.contains("Audio: English, Deutsch") && dom.contains("Subtitles: English, Français"))
        #expect(dom.contains("href=\"/play/\(playable)\""), "a play link")
        #expect(dom.contains("data-shown=\"1\""), "the page's script ran (search and sort)")
        #expect(!dom.contains("href=\"/console\""), "no console for a device")
        try Self.keep(["--timeout=5000", "--window-size=1100,760", page], as: "library-device.png", in: h)
        // The admin's library is the same, with the way to the console (where the other titles are).
        let (_, adminPage) = try TestMedia.shOutput(
            "curl -s -H 'Authorization: Bearer admin-secret-for-tests' \(gateway)/", in: h.root)
        #expect(adminPage.contains("<a href=\"/console\">Console</a>") && adminPage.contains(playable))
        #expect(!adminPage.contains(failed) && !adminPage.contains(waiting) && !adminPage.contains("data-action"))

        // The event streams: the admin's saw the failed and the waiting titles' events; the device's never did.
        try h.waitUntil(timeout: 20, "the admin's stream to carry every title") {
            let text = (try? String(contentsOf: adminEvents, encoding: .utf8)) ?? ""
            return [playable, failed, waiting].allSatisfy { text.contains("\"token\":\"\($0)\"") }
        }
        let deviceText = try String(contentsOf: deviceEvents, encoding: .utf8)
        #expect(deviceText.contains("\"token\":\"\(playable)\""), "the device follows its playable title")
        #expect(!deviceText.contains(failed) && !deviceText.contains(waiting), "\(deviceText.suffix(800))")
    }

    @Test func aDevicePlaysATitleWithFrenchSubtitlesChosen() throws {
        let h = try Harness(name: "libpage-play")
        // Video and subtitles only: with no audio device here, headless Chromium's media clock stands still for a
        // stream with audio (the audio choice is checked on the playlists in the test above).
        try TestMedia.videoWithSubtitles(into: h.media.appendingPathComponent("vs"), seconds: 8)
        try h.startOrigin()
        try h.startPipeline()
        let token = try h.submit("vs/master.m3u8", ["--name", "Le voyage", "--subtitles", "all"])
        #expect(try h.waitForFinal(token).state == .completed)
        let gateway = try h.startGateway(address: "127.0.0.1", environment: ["TZ": Self.zone])
        let secret = try h.addDevice("tablet")
        // The subtitles as one WebVTT file, both of the rendition's segments joined.
        let (_, vtt) = try TestMedia.shOutput(
            "curl -s -H 'Authorization: Bearer \(secret)' \(gateway)/titles/\(token)/subtitles/fr.vtt", in: h.root)
        #expect(
            vtt.hasPrefix("WEBVTT\n") && vtt.contains("00:00:00.000 --> 00:00:02.000\nline one fr")
                && vtt.contains("00:00:03.000 --> 00:00:05.000\nline two fr"), "\(vtt)")

        let (_, signed) = try h.stowctl(["devices", "sign", "tablet", "/play/\(token)", "--expires", "10m"])
        let page = signed.trimmingCharacters(in: .whitespacesAndNewlines) + "#autoplay&subtitles=fr"
        let playing = [
            "--autoplay-policy=no-user-gesture-required", "--virtual-time-budget=20000",
        ]
        // Headless Chromium's media clock follows its virtual time, which runs on while the player still fetches
        // its first segments: on a loaded machine a run can end before playback began. A few runs, each the whole
        // page from the start, until one has played past 3.5 s (the behaviour checked is the same in each).
        var dom = "", time = 0.0, runs = 0
        func attribute(_ name: String) -> String? {
            guard let start = dom.range(of: "<body"), let end = dom[start.upperBound...].range(of: ">") else {
                return nil
            }
            let tag = dom[start.upperBound..<end.lowerBound]
            guard let at = tag.range(of: " \(name)=\"") else { return nil }
            return String(tag[at.upperBound...].prefix { $0 != "\"" })
        }
        while runs < 8, time <= 3.5 {
            runs += 1
            dom = try Self.chromium(playing + ["--dump-dom", page], in: h)
            time = Double(attribute("data-current-time") ?? "") ?? 0
        }
        print("[measure] libpage-play: played to \(time) s in run \(runs)")
        // Played past the second cue's start (3 s), with that French cue the last one shown.
        #expect(time > 3.5, "the video played: \(String(describing: attribute("data-state"))) at \(time)")
        #expect(attribute("data-subtitles") == "fr" && attribute("data-text-track") == "fr")
        #expect(attribute("data-cue") == "line two fr", "a French cue was shown: \(dom.prefix(1500))")
        #expect(dom.contains("srclang=\"fr\"") && dom.contains("Français"))
        // The picture 4 s in, the second French cue on screen (when that run's playback began at once).
        try Self.keep(
            [
                "--autoplay-policy=no-user-gesture-required", "--virtual-time-budget=4200", "--window-size=1100,760",
                page,
            ],
            as: "play-page.png", in: h)
    }

    /// Headless Chromium (Debian `chromium`), failing the test when it is missing.
    static func chromium(_ arguments: [String], in h: Harness) throws -> String {
        let binary = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let binary else {
            throw HarnessError("chromium is not installed (Deploy/test.sh installs Debian's chromium)")
        }
        let args =
            [
                "--headless=new", "--no-sandbox", "--disable-gpu",
                "--user-data-dir=\(h.root.appendingPathComponent("chromium").path)",
            ] + arguments
        let quoted = ([binary] + args).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let (status, out) = try TestMedia.shOutput(
            "timeout 90 " + quoted.joined(separator: " ") + " 2>/dev/null", in: h.root)
        guard status == 0 else { throw HarnessError("chromium exited \(status)") }
        return out
    }

    /// A screenshot kept under `.build/test-output/`.
    static func keep(_ arguments: [String], as name: String, in h: Harness) throws {
        let shot = h.root.appendingPathComponent(name)
        let url = try #require(arguments.last)
        _ = try chromium(arguments.dropLast() + ["--screenshot=\(shot.path)", url], in: h)
        #expect(((try? FileManager.default.attributesOfItem(atPath: shot.path)[.size] as? Int) ?? 0) > 1000)
        let kept = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(
            ".build/test-output")
        try? FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: kept.appendingPathComponent(name))
        try? FileManager.default.copyItem(at: shot, to: kept.appendingPathComponent(name))
    }
}
