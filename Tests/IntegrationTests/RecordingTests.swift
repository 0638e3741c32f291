import Foundation
import StowageProtocol
import Testing

/// Recording live and event streams (`submit --record`) from `stowage-origin serve --live`, which turns a VOD
/// folder made by ffmpeg into a playlist that grows with time.
@Suite("Recording live and event streams", .serialized)
struct RecordingTests {
    /// A second, plain (VOD) origin on the same folder: what the recording must equal.
    func vodOrigin(_ h: Harness) throws -> String {
        let out = h.root.appendingPathComponent("vod.out")
        try h.spawn("vod", "stowage-origin", ["serve", "--root", h.media.path, "--port", "0"], stdout: out)
        var url = ""
        try h.waitUntil(timeout: 20, "the VOD origin") {
            let line = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            guard line.contains("listening") else { return false }
            url = String(line.split(separator: " ")[1].trimmingCharacters(in: .whitespacesAndNewlines))
            return true
        }
        return url
    }

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

    /// The origin's live media playlist as served now, and its media sequence.
    func originSequence(_ h: Harness, _ path: String) throws -> Int {
        let text = try TestMedia.sh("curl -sf '\(h.originURL + path)'", in: h.root)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") })
        return try #require(Int(line.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)))
    }

    @Test func anEventRecordedFromStartToEndIsTheVODFileForFileAndFrameForFrame() throws {
        let h = try Harness(name: "rec-event")
        try h.makeSample(seconds: 12)
        try h.startOrigin(extra: ["--live", "--live-speed", "1"])
        try h.startPipeline()
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

    @Test func aSlidingWindowWithRotatingKeysIsRecordedForItsDuration() throws {
        let h = try Harness(name: "rec-window")
        try TestMedia.aesRotatingNoIV(into: h.media, seconds: 16)
        try h.startOrigin(extra: ["--live", "--live-window", "3", "--live-start", "3", "--live-speed", "2"])
        try h.startPipeline()
        let token = try h.submit("index.m3u8", ["--record", "--duration", "10s"])
        let final = try h.waitForFinal(token, timeout: 120)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.recordedSeconds == 10, "five 2-second segments")
        #expect(h.log("scheduler").contains("the requested duration was recorded"))
        let local = URL(fileURLWithPath: try #require(final.localPlaylist))
        #expect(
            try compareBySequence(local: local, origin: h.media.appendingPathComponent("index.m3u8"), firstSequence: 7)
                == 5)
        let text = try String(contentsOf: local, encoding: .utf8)
        #expect(text.contains("#EXT-X-MEDIA-SEQUENCE:7"), "sequence numbers kept: the IVs are implicit")
        #expect(text.components(separatedBy: "#EXT-X-KEY").count - 1 == 3, "the rotation at every second segment")
        #expect(h.originRequests(matching: "enc-5.ts") == 0, "nothing past the duration is fetched")
        // Decodes as the VOD's first five segments, through `stowctl play` with the origins stopped.
        let vod = try vodOrigin(h)
        let expected = try OfflineCopy.framemd5(vod + "index.m3u8").split(separator: "\n")
        #expect(h.terminate("origin") == 0 && h.terminate("vod") == 0)
        let played = try OfflineCopy.framemd5(try h.startPlay(token)).split(separator: "\n")
        #expect(played.count >= 200 && played.count < expected.count)
        #expect(Array(expected.prefix(played.count)) == played, "the recorded stretch decodes as the VOD's")
    }

    @Test func aStalledRecorderReportsWhatLeftTheWindowAsAGap() throws {
        let h = try Harness(name: "rec-gap")
        try h.makeSample(seconds: 24)
        try h.startOrigin(extra: ["--live", "--live-window", "4", "--live-speed", "2", "--live-retain", "0"])
        try h.startPipeline()
        let token = try h.submit("v360p/index.m3u8", ["--record"])
        try h.waitUntil(timeout: 60, "two segments recorded") { (try h.status(token).recordedSeconds ?? 0) >= 4 }
        // The recorder stalls while the window moves on by more than its length.
        let scheduler = try #require(h.pid("scheduler"))
        let sequence = try originSequence(h, "v360p/index.m3u8")
        kill(scheduler, SIGSTOP)
        do {
            defer { kill(scheduler, SIGCONT) }
            try h.waitUntil(timeout: 30, "the window to move on by six segments") {
                try originSequence(h, "v360p/index.m3u8") >= sequence + 6
            }
        }
        let final = try h.waitForFinal(token, timeout: 120)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        let gaps = try #require(final.gaps)
        #expect(!gaps.isEmpty, "the missed stretch is reported")
        let missed = gaps.reduce(0) { $0 + $1.to - $1.from }
        #expect(missed >= 4 && (final.recordedSeconds ?? 0) + missed <= 24.001, "\(gaps) \(final.recordedSeconds ?? 0)")
        #expect(gaps.allSatisfy { $0.from >= 4 && $0.to > $0.from })
        let local = URL(fileURLWithPath: try #require(final.localPlaylist))
        let text = try String(contentsOf: local, encoding: .utf8)
        #expect(text.contains("#EXT-X-GAP") && text.contains("#EXT-X-DISCONTINUITY"))
        #expect(try compareBySequence(local: local, origin: h.media.appendingPathComponent("v360p/index.m3u8")) >= 4)
        let (_, shown) = try h.stowctl(["status", token])
        #expect(shown.contains("gap:"), "\(shown)")
        // Gaps are part of the copy: it plays and verifies with them (nothing is fetched for them).
        #expect(try h.stowctl(["playable", token]).0 == 0)
        #expect(try h.stowctl(["verify", token, "--repair"]).0 == 0)
        #expect(try h.status(token).gaps == gaps)
    }

    @Test func killingTheSchedulerLosesNothingThatWasStillInTheWindow() throws {
        let h = try Harness(name: "rec-kill")
        try h.makeSample(seconds: 20)
        try h.startOrigin(extra: ["--live", "--live-window", "6", "--live-speed", "1"])
        try h.startPipeline()
        let token = try h.submit("v360p/index.m3u8", ["--record"])
        try h.waitUntil(timeout: 60, "two segments recorded") { (try h.status(token).recordedSeconds ?? 0) >= 4 }
        let sequence = try originSequence(h, "v360p/index.m3u8")
        h.kill9("scheduler")
        try h.waitUntil(timeout: 30, "the stream to move on while the scheduler is down") {
            try originSequence(h, "v360p/index.m3u8") > sequence
        }
        try h.startScheduler()
        let final = try h.waitForFinal(token, timeout: 120)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.gaps == [], "nothing was missed")
        #expect(final.recordedSeconds == 20)
        let local = URL(fileURLWithPath: try #require(final.localPlaylist))
        #expect(try compareBySequence(local: local, origin: h.media.appendingPathComponent("v360p/index.m3u8")) == 10)
    }

    @Test func aStalledPlaylistIsReportedAndStopEndsTheRecording() throws {
        let h = try Harness(name: "rec-stall")
        try h.makeSample(seconds: 12)
        try h.startOrigin(extra: ["--live", "--live-speed", "4", "--live-stall-after", "3"])
        try h.startPipeline()
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
