import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Recording live and event streams (`submit --record`) from `stowage-origin serve --live`, which turns a VOD
/// folder made by ffmpeg into a playlist that grows with time. The live clock starts with the origin, so each test
/// starts the origin after the workers registered: a slow start of the pipeline cannot eat the window under test.
@Suite("Recording live and event streams", .serialized)
struct RecordingTests {
    /// A second, plain (VOD) origin on the same folder: what the recording must equal.
    func vodOrigin(_ h: Harness) throws -> String { try h.startOrigin(named: "vod").url }

    /// Each local segment `seg-<sequence>.ext` is byte-identical to the origin's segment with that media
    /// sequence number (the origin's VOD playlist, whose first sequence is `firstSequence`). Returns how many.
    func compareBySequence(local: URL, origin: URL, firstSequence: Int = 0) throws -> Int {
        let originURIs = try OfflineCopy.uris(origin)
        var compared = 0
        for name in try OfflineCopy.uris(local) where name.hasPrefix("seg-") {
            let digits = name.dropFirst(4).prefix { $0.isNumber }
            let index = try #require(Int(digits)) - firstSequence
            let originName = String(originURIs[index].split(separator: "?")[0])
            let a = try Data(contentsOf: local.deletingLastPathComponent().appendingPathComponent(name))
            let b = try Data(contentsOf: origin.deletingLastPathComponent().appendingPathComponent(originName))
            #expect(a == b, "\(name) differs from the origin's \(originName)")
            compared += 1
        }
        return compared
    }

    /// The origin's live window of a media playlist as served now: its media sequence and how many segments it
    /// lists (each sequence number is the segment's index in the VOD file, whose sequence starts at 0).
    func originWindow(_ h: Harness, _ path: String) throws -> (first: Int, count: Int) {
        let text = try TestMedia.sh("curl -sf '\(h.originURL + path)'", in: h.root)
        let lines = text.split(separator: "\n")
        let line = try #require(lines.first { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") })
        let first = try #require(Int(line.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)))
        return (first, lines.filter { $0.hasPrefix("#EXTINF:") }.count)
    }

    @Test func anEventRecordedFromStartToEndIsTheVODFileForFileAndFrameForFrame() throws {
        let h = try Harness(name: "rec-event")
        try h.makeSample(seconds: 12)
        try h.startPipeline()
        try h.startOrigin(extra: ["--live", "--live-speed", "1"])
        // Without --record the live playlist is refused, with a message that says how to record it.
        let refused = try h.waitForFinal(try h.submit("master.m3u8"), timeout: 60)
        #expect(refused.state == .failed)
        #expect(refused.error?.message.contains("--record") == true, "\(refused.error?.message ?? "")")

        let token = try h.submit("master.m3u8", ["--record"])
        var during: [TitleStatus] = []
        try h.waitUntil(timeout: 60, "the recording to record two stretches") {
            let s = try h.status(token)
            if s.state == .recording, let r = s.recordedSeconds, r > (during.last?.recordedSeconds ?? 0) {
                during.append(s)
            }
            return during.count >= 2 || s.state.isFinal
        }
        #expect(during.count >= 2, "status showed `recording` with recordedSeconds growing")
        #expect(during.first?.gaps == [])
        // A recording cannot be paused: the window would move on while it waits.
        let (pauseCode, _, pauseError) = try h.stowctlStreams(["pause", token])
        #expect(pauseCode == 1 && pauseError.contains("stowctl stop"), "\(pauseError)")

        let final = try h.waitForFinal(token, timeout: 120)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.recordedSeconds == 12)
        #expect(final.gaps == [])
        let dir = URL(fileURLWithPath: try #require(final.localPlaylist)).deletingLastPathComponent()
        #expect(
            try compareBySequence(
                local: dir.appendingPathComponent("video/index.m3u8"),
                origin: h.media.appendingPathComponent("v360p/index.m3u8")) == 6)
        let audio = h.media.appendingPathComponent("vEnglish/index.m3u8")
        #expect(
            try compareBySequence(local: dir.appendingPathComponent("audio-en/index.m3u8"), origin: audio)
                == (try OfflineCopy.uris(audio)).count)
        let video = try String(contentsOf: dir.appendingPathComponent("video/index.m3u8"), encoding: .utf8)
        #expect(video.contains("#EXT-X-PLAYLIST-TYPE:VOD") && video.hasSuffix("#EXT-X-ENDLIST\n"))
        #expect(!video.contains("EVENT"))
        #expect(h.log("scheduler").contains("the stream ended"))

        // The same frames as the VOD, through `stowctl play` with both origins stopped: the video through the
        // offline master, the audio through its own playlist (as at the origin).
        let vod = try vodOrigin(h)
        let expected = try [("v", "v360p/index.m3u8"), ("a", "vEnglish/index.m3u8")].map {
            try OfflineCopy.framemd5(vod + $0.1, stream: $0.0)
        }
        #expect(h.terminate("origin") == 0 && h.terminate("vod") == 0)
        let entry = try h.startPlay(token)
        let port = try #require(URL(string: entry)?.port)
        #expect(try OfflineCopy.framemd5(entry, stream: "v") == expected[0], "the video plays as the VOD's")
        #expect(
            try OfflineCopy.framemd5("http://127.0.0.1:\(port)/audio-en/index.m3u8", stream: "a") == expected[1],
            "the audio plays as the VOD's")
    }

    /// The index of the first segment of a sliding window of `window` segments, `start` available at time 0,
    /// `elapsed` seconds into a stream played at `speed` (as `stowage-origin serve --live` renders it).
    func windowStart(_ durations: [Double], elapsed: Double, window: Int, start: Int, speed: Double) -> Int {
        var end = 0.0, available = 0
        for d in durations {
            end += d
            if end / speed > elapsed + 1e-9 { break }
            available += 1
        }
        return max(0, min(max(available, start), durations.count) - window)
    }

    /// The EXTINF durations of a media playlist file.
    func durations(_ playlist: URL) throws -> [Double] {
        try String(contentsOf: playlist, encoding: .utf8).split(separator: "\n").compactMap {
            $0.hasPrefix("#EXTINF:") ? Double($0.dropFirst(8).prefix { $0 != "," }) : nil
        }
    }

    @Test func aSlidingWindowWithRotatingKeysIsRecordedForItsDuration() throws {
        let h = try Harness(name: "rec-window")
        // Twelve 2-second segments: the five recorded fit after any window start of the first seven. At speed 1 a
        // segment stays in the 3-segment window for 6 s, twice the 3 s between reloads (the target duration): at
        // speed 2 it stayed 3 s, no longer than that interval, and a reload a little late under load missed one.
        try TestMedia.aesRotatingNoIV(into: h.media, seconds: 24)
        let vodPlaylist = h.media.appendingPathComponent("index.m3u8")
        let (window, start, speed, firstVODSequence) = (3, 3, 1.0, 7)
        try h.startPipeline()
        // The live clock starts with the origin, somewhere between these two instants.
        let beforeOrigin = Date().timeIntervalSince1970
        try h.startOrigin(extra: [
            "--live", "--live-window", "\(window)", "--live-start", "\(start)", "--live-speed", "\(speed)",
        ])
        let originListening = Date().timeIntervalSince1970
        let token = try h.submit("index.m3u8", ["--record", "--duration", "10s"])
        let final = try h.waitForFinal(token, timeout: 120)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.recordedSeconds == 10, "five 2-second segments")
        #expect(h.log("scheduler").contains("the requested duration was recorded"))

        // Where the live window was at the recorder's first reload, from the origin's access log: the recorder
        // takes the window from its first segment, so the lowest segment it asked for names it (enc-N.ts is
        // sequence 7 + N); the window the origin served between the first playlist request and the first segment
        // request (the first reload lies between) must begin there.
        let gets = h.originLog().filter { $0.count > 3 && $0[1] == "GET" && $0[3] == "200" }
        let segmentGets = gets.compactMap { line -> (at: Double, index: Int)? in
            let name = line[2].split(separator: "?")[0]
            guard name.hasPrefix("/enc-"), name.hasSuffix(".ts"), let at = Double(line[0]) else { return nil }
            return Int(name.dropFirst(5).dropLast(3)).map { (at, $0) }
        }
        let firstPlaylistAt = try #require(gets.first { $0[2].hasPrefix("/index.m3u8") }.flatMap { Double($0[0]) })
        let firstSegmentAt = try #require(segmentGets.map(\.at).min(), "the recorder fetched segments")
        let vodDurations = try durations(vodPlaylist)
        let earliest = windowStart(
            vodDurations, elapsed: firstPlaylistAt - originListening, window: window, start: start, speed: speed)
        let latest = windowStart(
            vodDurations, elapsed: firstSegmentAt - beforeOrigin, window: window, start: start, speed: speed)
        let first = try #require(segmentGets.map(\.index).min())
        #expect(
            (earliest...latest).contains(first),
            "the recording starts at the window's first segment at its first reload (\(earliest)...\(latest)): \(first)"
        )
        let firstSequence = firstVODSequence + first
        print("[measure] rec-window: the origin's window began at sequence \(firstSequence) at the first reload")

        let local = URL(fileURLWithPath: try #require(final.localPlaylist))
        #expect(try compareBySequence(local: local, origin: vodPlaylist, firstSequence: firstVODSequence) == 5)
        let text = try String(contentsOf: local, encoding: .utf8)
        #expect(
            text.contains("#EXT-X-MEDIA-SEQUENCE:\(firstSequence)\n"),
            "sequence numbers kept (the IVs are implicit): \(text.prefix(200))")
        #expect(text.components(separatedBy: "#EXT-X-KEY").count - 1 == 3, "the rotation at every second segment")
        #expect(
            Set(segmentGets.map(\.index)) == Set(first..<(first + 5)),
            "the five segments of the duration are fetched, nothing before the window or past the duration")
        // Decodes as the VOD's five segments from there, through `stowctl play` with the origins stopped.
        let vod = try vodOrigin(h)
        let expected = try OfflineCopy.framemd5(vod + "index.m3u8").split(separator: "\n").map(frameHash)
        #expect(h.terminate("origin") == 0 && h.terminate("vod") == 0)
        let played = try OfflineCopy.framemd5(try h.startPlay(token)).split(separator: "\n").map(frameHash)
        #expect(played.count >= 200 && played.count < expected.count)
        let framesBefore = try #require(
            (0...(expected.count - played.count)).first { Array(expected[$0..<($0 + played.count)]) == played },
            "the recorded stretch decodes as a stretch of the VOD")
        let framesPerSegment = Double(expected.count) / Double(vodDurations.count)
        #expect(
            abs(Double(framesBefore) - framesPerSegment * Double(first)) < framesPerSegment / 2,
            "that stretch starts at segment \(first): \(framesBefore) frames in")
    }

    /// A framemd5 line without its timestamps: the frame's size and hash.
    func frameHash(_ line: Substring) -> String { line.split(separator: ",").suffix(2).joined(separator: ",") }

    @Test func aStalledRecorderReportsWhatLeftTheWindowAsAGap() throws {
        let h = try Harness(name: "rec-gap")
        // Twenty 2-second segments, a new one each second: room for the window to pass the stalled recorder.
        let (seconds, path) = (40, "v360p/index.m3u8")
        try h.makeSample(seconds: seconds)
        let segments = try durations(h.media.appendingPathComponent(path)).count
        try h.startPipeline()
        try h.startOrigin(extra: ["--live", "--live-window", "4", "--live-speed", "2", "--live-retain", "0"])
        let token = try h.submit(path, ["--record"])
        try h.waitUntil(timeout: 60, "two segments recorded") { (try h.status(token).recordedSeconds ?? 0) >= 4 }
        // The recorder stalls while the window moves on by more than its length. The window is read after the
        // stop: the recorder cannot have seen a segment past its last, but for one more that a reload in flight
        // at the stop may still bring. Two segments after that one must leave the window unseen (4 s missed), so
        // the window's first segment must pass them.
        let scheduler = try #require(h.pid("scheduler"))
        kill(scheduler, SIGSTOP)
        do {
            defer { kill(scheduler, SIGCONT) }
            let stopped = try originWindow(h, path)
            let awaited = stopped.first + stopped.count + 3
            try #require(
                awaited <= segments - stopped.count,
                "the stream ends before its window can pass the stalled recorder: \(stopped) of \(segments)")
            try h.waitUntil(timeout: 30, "the window to begin at sequence \(awaited)") {
                try originWindow(h, path).first >= awaited
            }
        }
        let final = try h.waitForFinal(token, timeout: 120)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        let gaps = try #require(final.gaps)
        #expect(!gaps.isEmpty, "the missed stretch is reported")
        let missed = gaps.reduce(0) { $0 + $1.to - $1.from }
        #expect(
            missed >= 4 && (final.recordedSeconds ?? 0) + missed <= Double(seconds) + 0.001,
            "\(gaps) \(final.recordedSeconds ?? 0)")
        #expect(gaps.allSatisfy { $0.from >= 4 && $0.to > $0.from })
        let local = URL(fileURLWithPath: try #require(final.localPlaylist))
        let text = try String(contentsOf: local, encoding: .utf8)
        #expect(text.contains("#EXT-X-GAP") && text.contains("#EXT-X-DISCONTINUITY"))
        #expect(try compareBySequence(local: local, origin: h.media.appendingPathComponent(path)) >= 4)
        let (_, shown) = try h.stowctl(["status", token])
        #expect(shown.contains("gap:"), "\(shown)")
        // Gaps are part of the copy: it plays and verifies with them (nothing is fetched for them).
        #expect(try h.stowctl(["playable", token]).0 == 0)
        #expect(try h.stowctl(["verify", token, "--repair"]).0 == 0)
        #expect(try h.status(token).gaps == gaps)
    }

    @Test func killingTheSchedulerLosesNothingThatWasStillInTheWindow() throws {
        let h = try Harness(name: "rec-kill")
        let path = "v360p/index.m3u8"
        try h.makeSample(seconds: 20)
        let segments = try durations(h.media.appendingPathComponent(path)).count
        try h.startPipeline()
        try h.startOrigin(extra: ["--live", "--live-window", "6", "--live-speed", "1"])
        let token = try h.submit(path, ["--record"])
        try h.waitUntil(timeout: 60, "two segments recorded") { (try h.status(token).recordedSeconds ?? 0) >= 4 }
        h.kill9("scheduler")
        // The window read after the kill lists every segment the dead scheduler can have known of; the stream
        // moves on while it is down until a segment past that window appears.
        let killed = try originWindow(h, path)
        let awaited = killed.first + killed.count
        try #require(awaited < segments, "no segment left to appear while the scheduler is down: \(killed)")
        try h.waitUntil(timeout: 30, "segment \(awaited) to appear while the scheduler is down") {
            let now = try originWindow(h, path)
            return now.first + now.count > awaited
        }
        try h.startScheduler()
        let final = try h.waitForFinal(token, timeout: 120)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.gaps == [], "nothing was missed")
        #expect(final.recordedSeconds == 20)
        let local = URL(fileURLWithPath: try #require(final.localPlaylist))
        #expect(try compareBySequence(local: local, origin: h.media.appendingPathComponent(path)) == segments)
    }

    @Test func aStalledPlaylistIsReportedAndStopEndsTheRecording() throws {
        let h = try Harness(name: "rec-stall")
        try h.makeSample(seconds: 12)
        try h.startPipeline()
        try h.startOrigin(extra: ["--live", "--live-speed", "4", "--live-stall-after", "3"])
        let token = try h.submit("v360p/index.m3u8", ["--record"])
        var stalled: TitleStatus?
        try h.waitUntil(timeout: 60, "the recording to report the stalled playlist") {
            stalled = try h.status(token)
            return stalled?.stalledSince != nil
        }
        #expect(stalled?.state == .recording && stalled?.recordedSeconds == 6)
        let (_, shown) = try h.stowctl(["status", token])
        #expect(shown.contains("stopped updating"), "\(shown)")
        #expect(try h.stowctl(["stop", token]).0 == 0)
        let final = try h.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.recordedSeconds == 6)
        let text = try String(contentsOf: URL(fileURLWithPath: try #require(final.localPlaylist)), encoding: .utf8)
        #expect(text.hasSuffix("#EXT-X-ENDLIST\n") && text.contains("#EXT-X-PLAYLIST-TYPE:VOD"))
        #expect(h.log("scheduler").contains("stopped by the operator"))
        let (again, _, message) = try h.stowctlStreams(["stop", token])
        #expect(again == 1 && message.contains("only a recording in progress"), "\(message)")
    }
}
