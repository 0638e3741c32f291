import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Recording live DASH (`submit --record URL.mpd`) from `stowage-origin serve --live`, which serves a static MPD
/// made by ffmpeg's `dash` muxer as a dynamic one that grows with the origin's clock, names that clock in a
/// `UTCTiming`, answers 404 for a segment asked for before it is complete, and turns static once every segment is
/// out. The live clock starts with the origin, so each test starts it after the workers registered.
@Suite("Recording live DASH", .serialized)
struct LiveDASHTests {
    /// ffmpeg's live-profile DASH of `seconds` seconds (2-second segments, one 320x180 video and one audio):
    /// `$Number$` with `@duration`, or `$Time$` with a SegmentTimeline (`chunk-<rep>-<time>.m4s`).
    func make(_ dir: URL, time: Bool, seconds: Int) throws {
        let naming =
            time ? "-use_timeline 1 -media_seg_name 'chunk-stream$RepresentationID$-$Time$.m4s'" : "-use_timeline 0"
        try TestMedia.sh(
            """
            timeout 300 ffmpeg -nostdin -v error -y \(DASHMedia.source) -t \(seconds) -map 0:v -map 1:a \
              -c:v libx264 -preset ultrafast -g 25 -sc_threshold 0 -s 320x180 -b:v 200k -c:a aac -b:a 64k \
              -f dash -seg_duration 2 -use_template 1 \(naming) \
              -adaptation_sets "id=0,streams=v id=1,streams=a" manifest.mpd
            """, in: dir)
        // ffmpeg 5.1 names the first AAC segment by its time before priming (`-1024`) while its timeline says
        // `t="0"`: the name the MPD gives is the one every client asks for.
        let primed = dir.appendingPathComponent("chunk-stream1--1024.m4s")
        if FileManager.default.fileExists(atPath: primed.path) {
            try FileManager.default.moveItem(at: primed, to: dir.appendingPathComponent("chunk-stream1-0.m4s"))
        }
    }

    /// The frames of the source's video: its init segment and media segments in media order.
    func sourceFrames(_ h: Harness) throws -> [String] {
        let chunks = try FileManager.default.contentsOfDirectory(atPath: h.media.path)
            .filter { $0.hasPrefix("chunk-stream0-") }
            .sorted {
                Int($0.dropFirst(14).prefix { $0.isNumber }) ?? 0 < Int($1.dropFirst(14).prefix { $0.isNumber }) ?? 0
            }
        return DASHMedia.hashes(
            try DASHMedia.referenceFrames(h.media, files: ["init-stream0.m4s"] + chunks, stream: "v", name: "ref.mp4"))
    }

    /// Requests the origin answered 404 for media segments.
    func segment404s(_ h: Harness) -> [String] {
        let log = (try? String(contentsOf: h.root.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").map(String.init).filter {
            let f = $0.split(separator: " ")
            return f.count > 3 && f[2].contains("chunk-") && f[3] == "404"
        }
    }

    /// Serves the finished title with `stowctl play`, the origin stopped, and returns its video's frames.
    func playedFrames(_ h: Harness, _ status: TitleStatus) throws -> [String] {
        #expect(h.terminate("origin") == 0)
        let entry = try h.startPlay(status.token)
        #expect(entry.hasSuffix("/manifest.mpd"), "\(entry)")
        return DASHMedia.hashes(try OfflineCopy.framemd5(entry, stream: "v"))
    }

    @Test func numberedLiveRecordedFromStartEndsWhenTheMPDTurnsStaticAndPlaysAsTheSource() throws {
        let h = try Harness(name: "livedash-number")
        try make(h.media, time: false, seconds: 8)
        try h.startPipeline()
        try h.startOrigin(extra: ["--live"])
        let mpd = try TestMedia.sh("curl -sf '\(h.originURL)manifest.mpd'", in: h.root)
        #expect(mpd.contains("type=\"dynamic\"") && mpd.contains("UTCTiming"), "\(mpd)")
        // Without --record a dynamic MPD is refused, saying how to record it.
        let refused = try h.waitForFinal(try h.submit("manifest.mpd"), timeout: 60)
        #expect(refused.state == .failed && refused.error?.message.contains("--record") == true)

        let token = try h.submit("manifest.mpd", ["--record"])
        var recording = false
        try h.waitUntil(timeout: 40, "the recording to record something") {
            let s = try h.status(token)
            recording = recording || (s.state == .recording && (s.recordedSeconds ?? 0) > 0)
            return recording || s.state.isFinal
        }
        #expect(recording, "status showed `recording` with recordedSeconds growing")
        let final = try h.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.recordedSeconds == 8 && final.gaps == [], "\(String(describing: final.recordedSeconds))")
        #expect(h.log("scheduler").contains("the MPD turned static"))
        #expect(segment404s(h).isEmpty, "nothing asked for before it existed: \(segment404s(h))")
        let manifest = try String(contentsOfFile: try #require(final.localPlaylist), encoding: .utf8)
        #expect(manifest.contains("type=\"static\"") && !manifest.contains("{{"))
        #expect(!manifest.contains(h.originURL) && manifest.contains("<SegmentTimeline>"), "\(manifest)")
        let expected = try sourceFrames(h)
        #expect(expected.count == 200)
        #expect(try playedFrames(h, final) == expected, "the recording plays as the source, frame for frame")
    }

    @Test func timelineLiveInAWindowRecordedForADurationPlaysAsTheSourcesFirstSeconds() throws {
        let h = try Harness(name: "livedash-time")
        try make(h.media, time: true, seconds: 12)
        try h.startPipeline()
        try h.startOrigin(extra: ["--live", "--live-window", "4", "--live-start", "2"])
        let token = try h.submit("manifest.mpd", ["--record", "--duration", "4s", "--from", "start"])
        let final = try h.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.recordedSeconds == 4 && final.gaps == [])
        #expect(h.log("scheduler").contains("the requested duration was recorded"))
        #expect(h.originRequests(containing: "chunk-stream0-0.m4s") == 1, "from the oldest segment of the window")
        #expect(h.originRequests(containing: "chunk-stream0-51200.m4s") == 0, "nothing past the duration")
        #expect(segment404s(h).isEmpty, "\(segment404s(h))")
        let expected = try sourceFrames(h)
        #expect(try playedFrames(h, final) == Array(expected.prefix(100)), "the first 4 s of the source")
    }

    @Test func aListedSegmentThatAnswers404IsAskedForAgainWhileInTheWindowNotAGap() throws {
        let h = try Harness(name: "livedash-lag")
        try make(h.media, time: false, seconds: 12)
        try h.startPipeline()
        // Each segment answers 404 for 3 s after the MPD lists it; the window is 10 s.
        try h.startOrigin(extra: ["--live", "--live-window", "5", "--live-start", "2", "--live-segment-lag", "3"])
        let token = try h.submit("manifest.mpd", ["--record", "--duration", "6s", "--from", "start"])
        let final = try h.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.recordedSeconds == 6 && final.gaps == [], "\(String(describing: final.gaps))")
        #expect(!segment404s(h).isEmpty, "the origin did answer 404 for listed segments")
        #expect(h.log("scheduler").contains("asked for again while it is in the window"))
        let expected = try sourceFrames(h)
        #expect(try playedFrames(h, final) == Array(expected.prefix(150)), "the first 6 s of the source")
    }

    @Test func anOriginStalledForThirtySecondsIsAWaitAndWhatLeftTheWindowMeanwhileIsAGap() throws {
        let h = try Harness(name: "livedash-stall")
        try make(h.media, time: true, seconds: 40)
        try h.startPipeline()
        // The timeline stops after 3 segments (6 s) for 30 s, then is at the origin's time again; 10 s window.
        try h.startOrigin(extra: [
            "--live", "--live-window", "5", "--live-stall-after", "3", "--live-stall-for", "30",
        ])
        let token = try h.submit("manifest.mpd", ["--record", "--duration", "30s", "--from", "start"])
        try h.waitUntil(timeout: 30, "the stall reported while the title is still recording") {
            let s = try h.status(token)
            return (s.state == .recording && s.stalledSince != nil && s.recordedSeconds == 6) || s.state.isFinal
        }
        #expect(try h.status(token).state == .recording, "a stall is a wait, not a failure")
        var states: [TitleState] = [.recording]
        try h.waitUntil(timeout: 60, "the recording to end") {
            let state = try h.status(token).state
            if states.last != state { states.append(state) }
            return state.isFinal
        }
        #expect(!states.contains(.suspended) && !states.contains(.failed), "\(states)")
        #expect(
            h.log("scheduler").contains("reason=the requested duration was recorded"),
            "the recording went on through the stall and ended by --duration")
        let final = try h.status(token)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        // Back at 36 s with a 10 s window: 6 … 26 s left it unseen (a gap, within the audio's few milliseconds of
        // AAC framing); the duration counts the gap, recordedSeconds only what was taken (6 s, then 26 … 30 s).
        let gaps = try #require(final.gaps)
        #expect(gaps.count == 1, "\(gaps)")
        let gap = try #require(gaps.first)
        #expect(abs(gap.from - 6) < 0.05 && abs(gap.to - 26) < 0.05, "\(gaps)")
        #expect(final.recordedSeconds == 10, "\(String(describing: final.recordedSeconds))")
        #expect(segment404s(h).isEmpty, "\(segment404s(h))")
        let expected = try sourceFrames(h)
        let after = Array(expected[650..<750])
        #expect(try playedFrames(h, final) == Array(expected.prefix(150)) + after, "what was recorded, no more")
    }

    /// `variants` lists a live MPD's renditions and says it is live; `estimate` answers per hour of recording, at
    /// the bandwidths the MPD gives for what `submit --record` would choose (here its only video and audio).
    func variantsAndEstimateAnswerForTheLiveMPD(_ h: Harness) throws {
        let url = h.originURL + "manifest.mpd"
        let (listed, variantsJSON) = try h.stowctl(["variants", url, "--json"])
        #expect(listed == 0, "\(variantsJSON)")
        let variants = try JSONDecoder().decode(VariantsReport.self, from: Data(variantsJSON.utf8))
        #expect(variants.live == true && variants.variants.map(\.resolution) == ["320x180"], "\(variants)")
        #expect(variants.renditions.map(\.type) == ["AUDIO"])
        let (estimated, estimateJSON) = try h.stowctl(["estimate", url, "--json"])
        #expect(estimated == 0, "\(estimateJSON)")
        let estimate = try JSONDecoder().decode(EstimateReport.self, from: Data(estimateJSON.utf8))
        let mpd = try TestMedia.sh("curl -sf '\(url)'", in: h.root)
        let bandwidths = mpd.matches(of: /bandwidth="(\d+)"/).compactMap { Int64($0.output.1) }
        #expect(bandwidths.count == 2, "\(mpd)")
        #expect(estimate.perHourOfRecording == true && estimate.durationSeconds == 3_600 && !estimate.exact)
        #expect(estimate.bytes == bandwidths.reduce(0, +) * 3_600 / 8, "\(estimate) for \(bandwidths)")
        // An hour of each track's 2 s segments (counted at the first listed one: ffmpeg's AAC segments are a
        // little shorter or longer than 2 s) and its init segment; the exact count is the unit tests'.
        #expect((2 + 2 * 1_700...2 + 2 * 1_900).contains(estimate.files), "\(estimate.files) files")
        let (text, printed) = try h.stowctl(["estimate", url])
        #expect(text == 0 && printed.contains("per hour of recording"), "\(printed)")
        let (exact, _, refusal) = try h.stowctlStreams(["estimate", url, "--exact"])
        #expect(exact != 0 && refusal.contains("--exact") && refusal.contains("live"), "\(refusal)")
    }

    @Test func stopEndsARecordingThatCompletesWithWhatItHas() throws {
        let h = try Harness(name: "livedash-stop")
        try make(h.media, time: true, seconds: 40)
        try h.startPipeline()
        try h.startOrigin(extra: ["--live", "--live-window", "5"])
        try variantsAndEstimateAnswerForTheLiveMPD(h)
        let token = try h.submit("manifest.mpd", ["--record"])
        try h.waitUntil(timeout: 40, "four seconds recorded") { (try h.status(token).recordedSeconds ?? 0) >= 4 }
        let (code, _, error) = try h.stowctlStreams(["stop", token])
        #expect(code == 0, "\(error)")
        let final = try h.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        let seconds = try #require(final.recordedSeconds)
        #expect(seconds >= 4 && seconds < 40 && final.gaps == [], "\(seconds)")
        #expect(h.log("scheduler").contains("recording ended"))
        let expected = try sourceFrames(h)
        #expect(try playedFrames(h, final) == Array(expected.prefix(Int(seconds * 25))), "what was recorded")
    }

    @Test func ffmpegsOwnLiveDASHIsRecordedAndPlaysAsWhatItWrote() throws {
        let h = try Harness(name: "livedash-ffmpeg")
        try h.startPipeline()
        // A second implementation of live DASH: ffmpeg's `dash` muxer in real time (`-re`, `-streaming`, a window
        // of five segments), its dynamic MPD and segments served as they are written; the origin gives the clock
        // its UTCTiming names. At its end ffmpeg rewrites the MPD as static.
        try FileManager.default.createDirectory(at: h.media, withIntermediateDirectories: true)
        try h.startOrigin(extra: ["--live"])
        let ffmpeg = try h.spawn(
            "ffmpeg", "/usr/bin/ffmpeg",
            [
                "-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25", "-t", "10",
                "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-sc_threshold", "0", "-b:v", "200k",
                "-f", "dash", "-seg_duration", "2", "-window_size", "5", "-use_template", "1", "-use_timeline", "1",
                "-streaming", "1", "-utc_timing_url", h.originURL + "live-time",
                h.media.appendingPathComponent("manifest.mpd").path,
            ])
        try h.waitUntil(timeout: 20, "ffmpeg to write its first live MPD") {
            let mpd = h.media.appendingPathComponent("manifest.mpd")
            let text = (try? String(contentsOf: mpd, encoding: .utf8)) ?? ""
            return text.contains("type=\"dynamic\"") && text.contains("<S ") || !ffmpeg.isRunning
        }
        #expect(ffmpeg.isRunning, "\(h.log("ffmpeg"))")
        let token = try h.submit("manifest.mpd", ["--record"])
        let final = try h.waitForFinal(token, timeout: 60)
        ffmpeg.waitUntilExit()
        #expect(ffmpeg.terminationStatus == 0, "\(h.log("ffmpeg"))")
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.recordedSeconds == 10 && final.gaps == [], "\(String(describing: final.recordedSeconds))")
        #expect(h.log("scheduler").contains("the MPD turned static"))
        #expect(segment404s(h).isEmpty, "\(segment404s(h))")
        #expect(h.originRequests(containing: "/live-time") > 0, "ffmpeg's UTCTiming was read")
        let expected = try sourceFrames(h)
        #expect(expected.count == 250)
        #expect(try playedFrames(h, final) == expected, "the recording plays as what ffmpeg wrote, frame for frame")
    }

    /// The origin's clock as its `/live-time` says it.
    func originTime(_ h: Harness) throws -> Date {
        let text = try TestMedia.sh("curl -sf '\(h.originURL)live-time'", in: h.root)
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return try (parser.date(from: trimmed) ?? plain.date(from: trimmed)).orThrow("no time in '\(text)'")
    }

    @Test func killingTheSchedulerMidRecordingLosesNothingStillInTheWindow() throws {
        let h = try Harness(name: "livedash-kill")
        try make(h.media, time: false, seconds: 20)
        try h.startPipeline()
        try h.startOrigin(extra: ["--live", "--live-window", "6"])
        let token = try h.submit("manifest.mpd", ["--record"])
        try h.waitUntil(timeout: 40, "two segments recorded") { (try h.status(token).recordedSeconds ?? 0) >= 4 }
        h.kill9("scheduler")
        // Two segments' worth of the stream goes by while the scheduler is down: all of it stays in the 12 s window.
        let killedAt = try originTime(h)
        try h.waitUntil(timeout: 30, "the stream to move on 4 s") { try originTime(h).timeIntervalSince(killedAt) >= 4 }
        try h.startScheduler()
        let final = try h.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.recordedSeconds == 20 && final.gaps == [], "nothing was missed")
        #expect(segment404s(h).isEmpty, "\(segment404s(h))")
        let expected = try sourceFrames(h)
        #expect(try playedFrames(h, final) == expected, "the recording plays as the source, frame for frame")
    }

    @Test func anOriginClockMinutesBehindTheBoxsIsReadFromUTCTiming() throws {
        let h = try Harness(name: "livedash-clock")
        try make(h.media, time: false, seconds: 8)
        try h.startPipeline()
        // The origin's clock runs five minutes behind the box's: by the box's clock every segment of the next five
        // minutes would exist, and asking for them would be a storm of 404s.
        try h.startOrigin(extra: ["--live", "--live-clock-offset=-300"])
        let token = try h.submit("manifest.mpd", ["--record"])
        let final = try h.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.recordedSeconds == 8 && final.gaps == [])
        #expect(segment404s(h).isEmpty, "\(segment404s(h))")
        #expect(h.originRequests(containing: "/live-time") > 0, "the UTCTiming clock was read")
    }

    @Test func aBoxClockFiveMinutesAheadAsksOnlyForSegmentsThatExist() throws {
        let h = try Harness(name: "livedash-faketime")
        try make(h.media, time: false, seconds: 8)
        // The scheduler and the download worker read a wall clock five minutes ahead (libfaketime); the origin's
        // is right and named by its UTCTiming.
        let (clock, fake) = try h.fakeClock("box")
        try "+300".write(to: clock, atomically: true, encoding: .utf8)
        try h.startScheduler(environment: fake)
        try h.startWorker("license")
        try h.startWorker("download", environment: fake)
        try h.startWorker("integrity")
        try h.waitUntil(timeout: 20, "three workers registered") { (try? h.workers().count) == 3 }
        try h.startOrigin(extra: ["--live"])
        let token = try h.submit("manifest.mpd", ["--record"])
        let final = try h.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.recordedSeconds == 8 && final.gaps == [], "no gap that is not real")
        #expect(segment404s(h).isEmpty, "no 404 at the origin: \(segment404s(h))")
    }
}
