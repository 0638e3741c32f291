import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// One number no stream has must not stop the box: the title that carries it fails naming the field, every process
/// lives (and so through a restart), and a normal title completes afterwards.
@Suite("Hostile numbers", .serialized)
struct HostileNumberTests {
    @Test func aHostileNumberFailsItsTitleAndTheBoxGoesOn() throws {
        let h = try Harness(name: "numbers")
        try h.makeSample(seconds: 4)
        func write(_ path: String, _ data: Data) throws {
            let url = h.media.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
        for (name, bandwidth) in [
            ("overflows-ledger", "6148914690666666667"), ("traps-planner", "9000000000000000000"),
        ] {
            try write(
                "\(name).m3u8",
                Data("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=\(bandwidth),RESOLUTION=640x360\nv360p/index.m3u8\n".utf8))
        }
        // A peer whose manifest promises more bytes than a disk can hold (served by the origin as a gateway would).
        let plan = ResolvedPlan(
            masterPlaylist: "#EXTM3U\n", renditions: [],
            resources: [
                PlannedResource(
                    kind: .segment, rendition: 0, url: "http://127.0.0.1:9/seg.ts", rangeOffset: nil,
                    rangeLength: nil, localPath: "video/seg.ts", container: .mpegTS, encrypted: false, duration: 4)
            ], bytesEstimate: 1_000)
        var manifest = PeerManifest(
            token: "abc", id: "evil", name: "Evil", source: "http://127.0.0.1:9/master.m3u8", entry: "master.m3u8",
            plan: plan, files: plan.resources.map { PeerFile(planned: $0, size: nil, sha256: nil) })
        manifest.bytesEstimate = Int64.max
        try write("titles/evil/manifest.json", try JSONEncoder().encode(manifest))
        let secret = h.root.appendingPathComponent("peer.secret")
        try "a-secret-of-the-peer".write(to: secret, atomically: true, encoding: .utf8)
        try h.startOrigin()
        try h.startPipeline()

        let (code, _) = try h.stowctl([
            "submit", "\(h.originURL)/overflows-ledger.m3u8", "--bitrate", "99999999999999999",
        ])
        #expect(code != 0, "stowctl refuses a bit rate no stream has")
        for name in ["overflows-ledger", "traps-planner"] {
            let status = try h.waitForFinal(try h.submit("\(name).m3u8"), timeout: 60)
            #expect(status.state == .failed && status.error?.code == .playlist, "\(name): \(status.state)")
            #expect(status.error?.message.contains("BANDWIDTH '") == true, "\(status.error?.message ?? "no error")")
        }
        let (peerCode, peerOut) = try h.stowctl([
            "submit", "--from-peer", h.originURL, "--peer-secret", secret.path, "evil", "--json",
        ])
        if peerCode == 0 {
            let token =
                try #require(
                    (try? JSONSerialization.jsonObject(with: Data(peerOut.utf8))) as? [String: Any])["token"] as? String
            let status = try h.waitForFinal(try #require(token), timeout: 60)
            #expect(status.state == .failed, "\(status.state)")
            #expect(status.error?.message.contains("bytesEstimate") == true, "\(status.error?.message ?? "none")")
        } else {
            #expect(peerOut.contains("bytesEstimate") || h.log("scheduler").contains("bytesEstimate"))
        }
        for process in ["scheduler", "download", "license", "integrity"] {
            #expect(h.isRunning(process), "\(process) is alive")
        }
        let normal = try h.waitForFinal(try h.submit("master.m3u8"), timeout: 120)
        #expect(normal.state == .completed, "\(String(describing: normal.error))")
    }

    /// The crash journal in the real binary: an abort marks it and the process dies of the signal as before; a
    /// title the journal names as handled when the crash came is failed at the next start, and only it.
    @Test func aCrashedSchedulerFailsOnlyTheTitleItWasHandling() throws {
        let h = try Harness(name: "crash-journal")
        try h.makeSample(seconds: 2)
        try h.startOrigin()
        // Swift's backtracer symbolicates a debug build for tens of seconds before the process dies: not needed here.
        let quick = ["SWIFT_BACKTRACE": "enable=no"]
        try h.startScheduler(environment: quick)
        for kind in ["license", "download", "integrity"] { try h.startWorker(kind) }
        try h.waitUntil(timeout: 20, "three workers registered") { (try? h.workers().count) == 3 }
        let first = try h.waitForFinal(try h.submit("master.m3u8"), timeout: 120)
        #expect(first.state == .completed)
        let journal = h.home.appendingPathComponent("run/scheduler.journal")
        let pid = try #require(h.pid("scheduler"))
        kill(pid, SIGABRT)
        try h.waitUntil(timeout: 20, "the scheduler to die of the abort") { !h.isRunning("scheduler") }
        let marked = try Data(contentsOf: journal)
        #expect(marked.first == UInt8(ascii: "!"), "the crash handler marked the journal")
        try h.startScheduler(environment: quick)
        try h.waitUntil(timeout: 20, "three workers registered again") { (try? h.workers().count) == 3 }
        #expect(try h.status(first.token).state == .completed, "an abort while idle blames no title")

        // A crash while handling the first title (what the handler leaves: '!', the token, what it did).
        _ = h.terminate("scheduler")
        try Data("!\(first.token)\tthe result of its verify task\n".utf8).write(to: journal)
        try h.startScheduler()
        try h.waitUntil(timeout: 20, "three workers registered again") { (try? h.workers().count) == 3 }
        let failed = try h.status(first.token)
        #expect(failed.state == .failed && failed.error?.code == .internal, "\(failed.state)")
        #expect(failed.error?.message.contains("crashed while handling the result of its verify task") == true)
        let second = try h.waitForFinal(try h.submit("master.m3u8", ["--name", "again"]), timeout: 120)
        #expect(h.isRunning("scheduler"))
        #expect(second.token != first.token || second.state == .completed, "\(second.state)")
    }
}
