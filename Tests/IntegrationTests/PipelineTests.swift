import Foundation
import StowageProtocol
import StowageTestSupport
import Testing
import ZeroMQ

/// Multi-process tests: the real executables, a real origin, real ffmpeg-made media, real SQLite.
@Suite("Pipeline, end to end", .serialized)
struct PipelineTests {
    @Test func downloadsAClearTitleByteForByte() throws {
        let h = try Harness(name: "e2e")
        try h.makeSample(seconds: 8)
        try h.startOrigin()
        try h.startPipeline()
        let started = Date()
        let (code, out) = try h.stowctl([
            "submit", h.originURL + "master.m3u8", "--bitrate", "1000000", "--name", "sample", "--wait",
        ])
        let elapsed = Date().timeIntervalSince(started)
        print("[measure] clear 8 s title, 3 variants: submit --wait took \(String(format: "%.2f", elapsed)) s")
        #expect(code == 0, "submit --wait failed: \(out)")
        let token = try #require(out.split(separator: "\n").last.map(String.init))
        let status = try h.status(token)
        #expect(status.state == .completed)
        #expect(status.playableOffline)
        #expect(status.progress == 1)
        #expect(status.segmentsDone == status.segmentsTotal && status.segmentsTotal > 0)
        #expect(status.name == "sample")
        #expect(status.error == nil)
        let master = try #require(status.localPlaylist)
        let titleDir = URL(fileURLWithPath: master).deletingLastPathComponent()
        // The selected variant (≤ 1 Mb/s is the 480p one) and the default audio, nothing else.
        var compared = try OfflineCopy.compare(
            localMedia: titleDir.appendingPathComponent("video/index.m3u8"),
            originMedia: h.media.appendingPathComponent("v480p/index.m3u8"))
        compared += try OfflineCopy.compare(
            localMedia: titleDir.appendingPathComponent("audio-en/index.m3u8"),
            originMedia: h.media.appendingPathComponent("vEnglish/index.m3u8"))
        #expect(compared == status.segmentsTotal)
        #expect(h.originRequests(matching: ".ts") == status.segmentsTotal, "each file fetched once")
        let entries = try FileManager.default.contentsOfDirectory(atPath: titleDir.path).sorted()
        #expect(entries == ["audio-en", "master.m3u8", "video"])
        // The offline playlists reference only local files; the media is the same frame for frame.
        let text = try String(contentsOfFile: master, encoding: .utf8)
        #expect(!text.contains("http"))
        let originFrames = try OfflineCopy.framemd5(h.originURL + "v480p/index.m3u8")
        #expect(try OfflineCopy.framemd5(master) == originFrames)
        // Played through `stowctl play` with the origin stopped: the same frames.
        #expect(h.terminate("origin") == 0, "the origin stops cleanly on SIGTERM")
        #expect(try h.stowctl(["playable", token]).0 == 0)
        #expect(try OfflineCopy.framemd5(h.startPlay(token)) == originFrames)
        // list --json is an array of the same objects.
        let (listCode, listOut) = try h.stowctl(["list", "--json"])
        #expect(listCode == 0)
        #expect(try JSONDecoder().decode([TitleStatus].self, from: Data(listOut.utf8)).map(\.token) == [token])
        #expect(h.terminate("scheduler") == 0, "SIGTERM is a graceful stop with exit 0")
        #expect(h.terminate("download") == 0)
    }

    @Test func survivesKillingTheOnlyDownloadWorker() throws {
        let h = try Harness(name: "kill")
        try h.makeSample(seconds: 30)
        try h.startOrigin(latencyMilliseconds: 150)
        try h.startPipeline(schedulerArguments: ["--per-title", "2"])
        let token = try h.submit("master.m3u8")
        try h.waitUntil(timeout: 60, "a few files verified") { ((try? h.status(token))?.segmentsDone ?? 0) >= 4 }
        h.kill9("download")
        let atKill = try h.status(token)
        #expect(atKill.state != .completed)
        try h.waitUntil(timeout: 10, "the dead worker to be dropped") {
            (try? h.workers().contains { $0.kind == .download }) == false
        }
        try h.startWorker("download", name: "download-2")
        let final = try h.waitForFinal(token)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        let dir = URL(fileURLWithPath: try #require(final.localPlaylist)).deletingLastPathComponent()
        _ = try OfflineCopy.compare(
            localMedia: dir.appendingPathComponent("video/index.m3u8"),
            originMedia: h.media.appendingPathComponent("v360p/index.m3u8"))
        _ = try OfflineCopy.compare(
            localMedia: dir.appendingPathComponent("audio-en/index.m3u8"),
            originMedia: h.media.appendingPathComponent("vEnglish/index.m3u8"))
        // Only what was in flight at the kill (at most --per-title of fetches) was fetched twice.
        let fetches = h.originRequests(matching: ".ts")
        #expect(
            fetches >= final.segmentsTotal && fetches <= final.segmentsTotal + 2,
            "fetches \(fetches) for \(final.segmentsTotal) files")
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".part") }
        #expect(leftovers.isEmpty, "no .part files remain: \(leftovers)")
    }

    @Test func survivesKillingTheScheduler() throws {
        let h = try Harness(name: "sched")
        try h.makeSample(seconds: 30)
        try h.startOrigin(latencyMilliseconds: 150)
        try h.startScheduler(["--per-title", "2"])
        try h.startWorker("license")
        try h.startWorker("download", environment: Harness.fetchTaskLogging)
        try h.startWorker("integrity")
        try h.waitUntil(timeout: 20, "three workers registered") { (try? h.workers().count) == 3 }
        let token = try h.submit("master.m3u8")
        try h.waitUntil(timeout: 60, "a few files verified") { ((try? h.status(token))?.segmentsDone ?? 0) >= 4 }
        h.kill9("scheduler")
        // What the store says was verified when the scheduler died: none of these may be requested again.
        let verified = try h.verifiedPaths(token)
        #expect(verified.count >= 4, "files verified before the kill: \(verified)")
        // Nor leased again: after the restart the fetch tasks name exactly the files not verified at the kill.
        let states = try h.resourceStates(token)
        let unverified = Set(states.filter { $0.state == "pending" || $0.state == "fetching" }.map(\.path))
        #expect(
            states.allSatisfy { ["pending", "fetching", "verified"].contains($0.state) },
            "every file is fetched or verified whole: \(states.map(\.state))")
        let mark = h.logMark("download")
        let restart = Date()
        try h.startScheduler(["--per-title", "2"])
        let final = try h.waitForFinal(token)
        print(
            "[measure] scheduler kill -9 + restart: title "
                + "completed \(String(format: "%.2f", Date().timeIntervalSince(restart))) s after restart"
        )
        #expect(final.state == .completed, "\(String(describing: final.error))")
        let dir = URL(fileURLWithPath: try #require(final.localPlaylist)).deletingLastPathComponent()
        _ = try OfflineCopy.compare(
            localMedia: dir.appendingPathComponent("video/index.m3u8"),
            originMedia: h.media.appendingPathComponent("v360p/index.m3u8"))
        // Workers re-registered with the new scheduler by themselves.
        #expect(try h.workers().count == 3)
        for path in verified {
            let requests = h.originGets(path: path)
            #expect(requests == 1, "\(path) was verified before the kill and requested \(requests) times")
        }
        let leased = Set(h.fetchTaskFiles("download", after: mark))
        let extra = leased.subtracting(unverified).sorted(), missing = unverified.subtracting(leased).sorted()
        #expect(leased == unverified, "leased after the restart though verified: \(extra); never leased: \(missing)")
    }

    @Test func malformedPlaylistFailsNamingTheLine() throws {
        let h = try Harness(name: "bad")
        try FileManager.default.createDirectory(at: h.media, withIntermediateDirectories: true)
        try "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:two seconds,\nseg0.ts\n#EXT-X-ENDLIST\n"
            .write(to: h.media.appendingPathComponent("bad.m3u8"), atomically: true, encoding: .utf8)
        try "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg0.ts\n".write(
            to: h.media.appendingPathComponent("live.m3u8"), atomically: true, encoding: .utf8)
        try h.startOrigin()
        try h.startPipeline()
        let (code, out) = try h.stowctl(["submit", h.originURL + "bad.m3u8", "--wait"])
        #expect(code == 1)
        let token = try #require(out.split(separator: "\n").last.map(String.init))
        let status = try h.status(token)
        #expect(status.state == .failed)
        #expect(status.error?.code == .playlist)
        #expect(status.error?.message.contains("line 3") == true, "\(String(describing: status.error))")
        #expect(status.error?.message.contains("bad.m3u8") == true)
        let live = try h.waitForFinal(try h.submit("live.m3u8"))
        #expect(live.error?.code == .playlist)
        #expect(live.error?.message.contains("live playlist") == true)
        let gone = try h.waitForFinal(try h.submit("missing.m3u8"))
        #expect(gone.error?.code == .sourceGone)
        // A permanent error on a segment (404) fails the title, naming the URL and the status.
        try "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nnot-there.ts\n#EXT-X-ENDLIST\n"
            .write(to: h.media.appendingPathComponent("hole.m3u8"), atomically: true, encoding: .utf8)
        let hole = try h.waitForFinal(try h.submit("hole.m3u8"))
        #expect(hole.state == .failed)
        #expect(hole.error?.code == .httpStatus)
        #expect(hole.error?.message.contains("not-there.ts") == true && hole.error?.message.contains("404") == true)
        // Usage errors exit 2.
        #expect(try h.stowctl(["submit", "ftp://x/y.m3u8"]).0 == 2)
    }

    @Test func rogueFramesAreDroppedAndTheSchedulerKeepsServing() throws {
        let h = try Harness(name: "rogue")
        try FileManager.default.createDirectory(at: h.media, withIntermediateDirectories: true)
        try h.startPipeline()
        let context = try Context()
        let rogue = try context.socket(.dealer)
        try rogue.connect("ipc://" + h.home.appendingPathComponent("run/scheduler.ipc").path)
        var rng = SeededGenerator(seed: 29)
        func frames(_ parts: String...) -> [[UInt8]] { parts.map { Array($0.utf8) } }
        var garbage: [[[UInt8]]] = []
        garbage.append(frames("hello"))
        garbage.append(frames("STW1", "RESULT"))
        garbage.append(frames("STW9", "REGISTER", "{}"))
        garbage.append(frames("STW1", "REGISTER", "{not json"))
        garbage.append(frames("STW1", "REGISTER", #"{"kind":"download","capacity":-5,"host":"x","pid":1}"#))
        garbage.append(
            frames(
                "STW1", "RESULT",
                #"{"taskID":"nope","token":"t","outcome":{"fetched":{"_0":{"bytes":1,"sha256":"x"}}}}"#))
        garbage.append(frames("STW1", "EVENT", "{}"))
        garbage.append(frames("STW1", "REQUEST", #"{"requestID":"1","operation":{"explode":{}}}"#))
        for _ in 0..<200 {
            var message: [[UInt8]] = []
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                message.append(
                    (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
            }
            garbage.append(message)
        }
        for frames in garbage { try rogue.send(frames) }
        try h.waitUntil(timeout: 10, "the scheduler to read the rogue frames") {
            h.log("scheduler").contains("dropped")
        }
        #expect(h.isRunning("scheduler"))
        let (code, out) = try h.stowctl(["list", "--json"])
        #expect(code == 0, "scheduler still answers: \(out)")
        #expect(try h.workers().count == 3, "real workers are unaffected")
        let log = try String(contentsOf: h.root.appendingPathComponent("scheduler.log"), encoding: .utf8)
        #expect(log.contains("dropped"))
        rogue.close()
    }
}
