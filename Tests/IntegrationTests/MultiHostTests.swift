import Foundation
import StowageProtocol
import StowageTestSupport
import Testing
import ZeroMQ

/// Workers on two hosts over CURVE-secured tcp, and the allow-list at the door.
@Suite("Several hosts", .serialized)
struct MultiHostTests {
    /// Keys for `name` (see ``Harness/curveClient(_:role:endpoint:)``), on the allow-list when `allowed`.
    func keys(_ h: Harness, _ name: String, allowed: Bool, endpoint: String) throws -> [String] {
        try h.curveClient(name, role: allowed ? "" : nil, endpoint: endpoint)
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
        let (bare, _, message) = try h.stowctlStreams(["workers", "--scheduler", endpoint])
        #expect(bare == 1 && message.contains("--curve-key"), "\(message)")
        #expect(try h.stowctl(["workers", "--json"] + admitted).0 == 0, "stowctl with an allowed key works over tcp")
        // The allow-list is re-read at each connection: allowing the key lets the waiting worker in.
        try h.allow("stranger")
        try h.waitUntil(timeout: 60, "the stranger registered once allowed") { (try? h.workers().count) == 2 }
    }

    /// A client without CURVE (a plain ZeroMQ DEALER) on the tcp endpoint: the request the home's ipc socket
    /// answers gets no answer over tcp, and the scheduler counts the connection as refused
    /// (`stowage_refused_connections_total`). `stowctl` given the tcp endpoint without keys names what is missing.
    @Test func aPlainClientGetsNoAnswerAndIsCountedAsRefused() throws {
        let h = try Harness(name: "plain")
        let endpoint = "tcp://127.0.0.1:\(try Harness.freePort())"
        let metrics = try Harness.freePort()
        let admin = try h.curveClient("admin", role: "operator", endpoint: endpoint)
        try h.startScheduler(["--bind", endpoint, "--metrics", "\(metrics)"])
        try h.waitUntil(timeout: 20, "the scheduler's metrics") { (try? Prometheus.scrape(metrics)) != nil }
        #expect(try h.stowctl(["workers", "--json"] + admin).0 == 0, "an allowed CURVE key is answered over tcp")
        func refused() throws -> Double {
            Prometheus.value(try Prometheus.scrape(metrics), "stowage_refused_connections_total") ?? 0
        }
        let refusedBefore = try refused()

        let request = FrameCodec.encode(.request, ClientRequest(requestID: "plain-1", operation: .workers))
        let context = try Context()
        func connect(_ endpoint: String) throws -> Socket {
            let socket = try context.socket(.dealer)
            try socket.connect(endpoint)
            try socket.send(request, dontWait: true)
            return socket
        }
        func answer(_ socket: Socket, within seconds: Double) throws -> [[UInt8]]? {
            let ready = try Poller.poll([.socket(socket, .readable)], timeoutMilliseconds: Int(seconds * 1000))
            return ready[0].contains(.readable) ? try socket.receive(dontWait: true) : nil
        }
        // The same request over the home's ipc socket (no CURVE: a 0700 directory) is answered.
        let local = try connect("ipc://" + h.home.appendingPathComponent("run/scheduler.ipc").path)
        defer { local.close(linger: 0) }
        let reply = try #require(try answer(local, within: 10), "the request is one the scheduler answers")
        #expect(try FrameCodec.decode(reply).command == .reply)
        // Over tcp without CURVE: no answer within 3 s (the ipc one came at once), and counted as refused.
        let plain = try connect(endpoint)
        defer { plain.close(linger: 0) }
        #expect(try answer(plain, within: 3) == nil, "a plain client gets no answer")
        #expect(h.isRunning("scheduler"))
        let counted = (try? h.waitUntil(timeout: 5, "the plain connection counted") { try refused() > refusedBefore })
        #expect(counted != nil, "stowage_refused_connections_total counts the plain connection")

        // stowctl without keys, or without the scheduler's public key, names the option it needs.
        let (bare, _, bareError) = try h.stowctlStreams(["workers", "--scheduler", endpoint])
        #expect(bare == 1 && bareError.contains("--curve-key"), "\(bareError)")
        let withoutServerKey = Array(admin.prefix(4))  // --scheduler ENDPOINT --curve-key FILE
        let (noServer, _, noServerError) = try h.stowctlStreams(["workers"] + withoutServerKey)
        #expect(noServer == 1 && noServerError.contains("--curve-server-key"), "\(noServerError)")
    }

    /// Everything host B's kernel had for the scheduler's `port` was delivered and read: on B no connection to it
    /// holds unacknowledged bytes or is still closing with data or a FIN unacknowledged (`ss`: Send-Q 0, not
    /// FIN-WAIT-1, CLOSING, LAST-ACK or SYN-SENT), and on this host no connection from B to it holds bytes the
    /// scheduler has not read (Recv-Q 0).
    static func drained(_ h: Harness, _ b: TestHost, port: Int) throws -> Bool {
        func sockets(_ command: String) throws -> [[Substring]] {
            try TestMedia.shOutput(command, in: h.root).1.split(separator: "\n").map { $0.split(separator: " ") }
                .filter { $0.count >= 5 }
        }
        let onB = try sockets("ip netns exec \(b.namespace) ss -Htn state all '( dport = :\(port) )'")
        let closing: Set<Substring> = ["FIN-WAIT-1", "CLOSING", "LAST-ACK", "SYN-SENT"]
        if onB.contains(where: { closing.contains($0[0]) || $0[2] != "0" }) { return false }
        let here = try sockets("ss -Htn state all '( sport = :\(port) )'")
        return !here.contains { $0[4].hasPrefix(b.address + ":") && $0[1] != "0" }
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
        // Whatever B sent before its new registration may still be on its way (its kernel retransmits what the
        // cut held back): wait until it all arrived and was read, so nothing more of it can come.
        let port = try #require(URL(string: endpoint)?.port)
        try h.waitUntil(timeout: 240, "everything host B sent to the scheduler delivered and read") {
            try Self.drained(h, b, port: port)
        }
        _ = try h.workers()  // one more turn of the scheduler's loop over what it read
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
