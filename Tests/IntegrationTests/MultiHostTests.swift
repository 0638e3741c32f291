import Foundation
import StowageProtocol
import Testing

/// Workers on two hosts over CURVE-secured tcp, and the allow-list at the door.
@Suite("Several hosts", .serialized)
struct MultiHostTests {
    /// Keys: the scheduler's pair in the home, one pair for `name` in the test root, its .pub on the allow-list
    /// when `allowed`. Returns the arguments a worker or stowctl needs to connect.
    func keys(_ h: Harness, _ name: String, allowed: Bool, endpoint: String) throws -> [String] {
        if !FileManager.default.fileExists(atPath: h.home.appendingPathComponent("keys/scheduler.key").path) {
            #expect(try h.stowctl(["keys", "generate", "scheduler"]).0 == 0)
        }
        let dir = h.root.appendingPathComponent("keys-\(name)")
        let (code, out) = try h.stowctl(["keys", "generate", name, "--dir", dir.path])
        #expect(code == 0, "\(out)")
        if allowed { try allow(h, name) }
        return [
            "--scheduler", endpoint, "--curve-key", dir.appendingPathComponent("\(name).key").path,
            "--curve-server-key", h.home.appendingPathComponent("keys/scheduler.pub").path,
        ]
    }

    func allow(_ h: Harness, _ name: String) throws {
        let allowed = h.home.appendingPathComponent("keys/allowed")
        try FileManager.default.createDirectory(at: allowed, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: h.root.appendingPathComponent("keys-\(name)/\(name).pub"),
            to: allowed.appendingPathComponent("\(name).pub"))
    }

    @Test func anUnknownKeyCannotRegister() throws {
        let h = try Harness(name: "curve")
        let endpoint = "tcp://127.0.0.1:\(try Harness.freePort())"
        _ = try keys(h, "scheduler-only", allowed: false, endpoint: endpoint)  // makes the scheduler's pair
        try h.startScheduler(["--bind", endpoint])
        let stranger = try keys(h, "stranger", allowed: false, endpoint: endpoint)
        try h.spawn("stranger", "stowage-download-worker", stranger)
        let admitted = try keys(h, "admitted", allowed: true, endpoint: endpoint)
        try h.spawn("admitted", "stowage-download-worker", admitted)
        try h.waitUntil(timeout: 20, "the admitted worker registered") { (try? h.workers().count) == 1 }
        try h.waitUntil(timeout: 20, "the stranger refused") { h.log("scheduler").contains("not on the allow-list") }
        let workers = try h.workers()
        #expect(workers.count == 1 && workers[0].pid == h.pid("admitted"), "only the allowed key registers: \(workers)")
        let strangerKey = try String(
            contentsOf: h.root.appendingPathComponent("keys-stranger/stranger.pub"), encoding: .utf8
        )
        .split(separator: " ")[0]
        let log = h.log("scheduler")
        #expect(log.contains("not on the allow-list") && log.contains(String(strangerKey)), "the refusal names the key")
        // A client needs keys too, and says which.
        let (bare, message) = try h.run("stowctl", ["workers", "--scheduler", endpoint])
        #expect(bare == 1)
        _ = message
        #expect(try h.stowctl(["workers", "--json"] + admitted).0 == 0, "stowctl with an allowed key works over tcp")
        // The allow-list is re-read at each connection: allowing the key lets the waiting worker in.
        try allow(h, "stranger")
        try h.waitUntil(timeout: 60, "the stranger registered once allowed") { (try? h.workers().count) == 2 }
    }

    @Test func aWorkerHostCutOffMidTitle() throws {
        let h = try Harness(name: "hosts")
        let b = try TestHost.make()
        defer { b.remove() }
        try h.makeSample(seconds: 12)
        // The origin and the scheduler live on host A, at the address host B reaches.
        try h.startOrigin(latencyMilliseconds: 600, extra: ["--host", b.peerAddress])
        let endpoint = "tcp://\(b.peerAddress):\(try Harness.freePort())"
        let hostB = try keys(h, "host-b", allowed: true, endpoint: endpoint)
        try h.startScheduler(["--bind", endpoint, "--per-title", "3"])
        try h.startWorker("license")
        try h.startWorker("integrity")
        // Host B's download worker shares the title storage (here the same filesystem, as NFS would).
        try h.spawn("download-b", "stowage-download-worker", hostB + ["--home", h.home.path], namespace: b.namespace)
        try h.waitUntil(timeout: 30, "three workers registered") { (try? h.workers().count) == 3 }
        let first = try #require(try h.workers().first { $0.kind == .download })

        let token = try h.submit("master.m3u8")
        try h.waitUntil(timeout: 60, "host B fetching") {
            let s = try h.status(token)
            let inHand = try h.workers().first { $0.id == first.id }?.tasksInHand ?? 0
            return s.segmentsDone >= 2 && s.segmentsDone < s.segmentsTotal - 2 && inHand > 0
        }
        b.cut()
        try h.startWorker("download", name: "download-a")
        let final = try h.waitForFinal(token, timeout: 120)
        #expect(final.state == .completed && final.bytesDownloaded == final.bytesExpected)
        #expect(h.log("scheduler").contains("declared dead"), "host B's leases expired")
        #expect(try h.stowctl(["verify", token]).0 == 0)

        // Host B comes back: it registers again under a new identity; whatever it still sends is stale.
        b.restore()
        try h.waitUntil(timeout: 60, "host B registered again") {
            try h.workers().contains { $0.kind == .download && $0.id != first.id && $0.pid == first.pid && $0.alive }
        }
        usleep(2_000_000)  // an observation window: whatever B still had in hand may arrive now
        let after = try h.status(token)
        #expect(
            after.state == .completed && after.segmentsDone == final.segmentsDone
                && after.bytesDownloaded == final.bytesDownloaded)
        #expect(try h.stowctl(["verify", token]).0 == 0, "nothing B sent late changed the stored copy")
        let master = try #require(final.localPlaylist)
        let video = URL(fileURLWithPath: master).deletingLastPathComponent().appendingPathComponent("video/index.m3u8")
        #expect(
            try OfflineCopy.compare(localMedia: video, originMedia: h.media.appendingPathComponent("v360p/index.m3u8"))
                == 6)
        let stale = h.log("scheduler").components(separatedBy: "ignored").count - 1
        print("multi-host: namespace=\(b.namespace) stale results ignored=\(stale)")
    }
}
