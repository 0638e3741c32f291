import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Waiting for the network with the real processes: an origin gone mid-title, a license server that does not
/// answer and an origin never reached, all in one run, because each costs the retry budget (8 attempts with
/// backoff, about a minute of real time) before the title waits, and the three budgets run side by side.
/// The decisions behind it (the budget, the probe's backoff, minutes of waiting without failing, the give-up
/// limit) are proven on the manual clock in `StowageSchedulerServiceTests` (`NetworkComponentServiceTests`,
/// `NetworkWaitServiceTests` for a license server); this test proves that the processes wire them to real sockets.
@Suite("Waiting for the network", .serialized)
struct NetworkWaitTests {
    /// Three titles wait for three hosts (`network`, naming the host and the connection refused): A's origin
    /// stopped after two files, C's license server never started, B's origin never started. A's origin and C's
    /// license server come back (each once its title waits): the probes resume both, which complete by themselves
    /// (A from its bytes on disk).
    /// B still waits; the scheduler restarted with `--give-up-after 6s` fails it at once, since its wait counts
    /// from when it was suspended, not from the restart.
    /// Waits until `token` is suspended (or ended), then checks that it waits for the network, naming `host`.
    static func waitsForTheNetwork(_ h: Harness, _ token: String, host: Int) throws -> TitleStatus {
        var waiting: TitleStatus?
        try h.waitUntil(timeout: 120, "\(token) to wait for 127.0.0.1:\(host)") {
            waiting = try? h.status(token)
            return waiting?.state == .suspended || waiting?.state.isFinal == true
        }
        let w = try #require(waiting)
        #expect(w.state == .suspended && w.suspendedReason == .network, "\(w.state) \(String(describing: w.error))")
        #expect(w.waitingFor == "127.0.0.1:\(host)")
        #expect(w.suspendedSince != nil && w.nextProbeAt != nil, "status says since when and the next probe")
        #expect(w.error?.code == .network)
        #expect(
            w.error?.message.contains("connection refused by 127.0.0.1:\(host)") == true, "\(w.error?.message ?? "")")
        return w
    }

    @Test func titlesWaitForTheirHostsResumeWhenTheyAnswerAndGiveUpAfterFailsTheRest() throws {
        let h = try Harness(name: "netwait")
        try h.makeSample(seconds: 12)
        try TestMedia.aesExplicitIV(into: h.media.appendingPathComponent("aes"), seconds: 4)
        try h.startOrigin(throttleBytesPerSecond: 150_000)
        let port = try #require(URL(string: h.originURL)?.port)
        let licensePort = try Harness.freePort()
        let deadPort = try Harness.freePort()
        let policy = h.root.appendingPathComponent("policy.json")
        try #"{"default": {"grantKind": "rental", "maxRentalSeconds": 3600}}"#.write(
            to: policy, atomically: true, encoding: .utf8)
        try h.startPipeline(schedulerArguments: ["--per-title", "2", "--titles", "3"])
        // B and C first: their budgets (about a minute) are the longest part of the test.
        let (code, out) = try h.stowctl(["submit", "http://127.0.0.1:\(deadPort)/master.m3u8"])
        #expect(code == 0, "an unreachable origin is no failed submit: \(out)")
        let b = String(try #require(out.split(separator: "\n").last))
        let c = try h.submit(
            "aes/index.m3u8", ["--rental", "1h", "--license-url", "http://127.0.0.1:\(licensePort)/license?user=a"])
        let a = try h.submit("master.m3u8", ["--bitrate", "2000000"])
        try h.waitUntil(timeout: 60, "two files of A verified") { ((try? h.status(a))?.segmentsDone ?? 0) >= 2 }
        #expect(h.terminate("origin") == 0)

        // Each host comes back as soon as its title waits, so the first probe (2 s after) finds it.
        let before = try Self.waitsForTheNetwork(h, a, host: port).segmentsDone
        try h.startOrigin(port: port)  // unthrottled now
        _ = try Self.waitsForTheNetwork(h, c, host: licensePort)
        try h.startOrigin(named: "licenses", port: licensePort, extra: ["--license-policy", policy.path])
        _ = try Self.waitsForTheNetwork(h, b, host: deadPort)
        let finalA = try h.waitForFinal(a, timeout: 90)
        #expect(finalA.state == .completed, "\(String(describing: finalA.error))")
        #expect(finalA.error == nil)
        #expect(finalA.segmentsDone > before)
        let dir = URL(fileURLWithPath: try #require(finalA.localPlaylist)).deletingLastPathComponent()
        let compared = try OfflineCopy.compare(
            localMedia: dir.appendingPathComponent("video/index.m3u8"),
            originMedia: h.media.appendingPathComponent("v720p/index.m3u8"))
        #expect(compared >= 3)
        let finalC = try h.waitForFinal(c, timeout: 90)
        #expect(finalC.state == .completed, "\(String(describing: finalC.error))")
        #expect(finalC.license?.kind == .rental)
        let lines = h.log("scheduler").split(separator: "\n")
        for host in [port, licensePort] {
            #expect(
                lines.contains { $0.contains("host answers again") && $0.contains("127.0.0.1:\(host)") },
                "resumed by the probe of 127.0.0.1:\(host), not by an operator")
        }
        let stillB = try h.status(b)
        #expect(stillB.state == .suspended && stillB.suspendedReason == .network, "B waits while its host is away")

        // Restarted with --give-up-after 6s once B has waited 8 s: it fails at the restart's first check (every
        // 2 s), not 6 s after the restart, since its wait counts from its suspension.
        let since = try #require(stillB.suspendedSince.flatMap { ISO8601DateFormatter().date(from: $0) })
        try h.waitUntil(timeout: 15, "B to have waited 8 s") { Date().timeIntervalSince(since) >= 8 }
        #expect(h.terminate("scheduler") == 0)
        let restarted = Date()
        try h.startScheduler(["--give-up-after", "6s"])
        let finalB = try h.waitForFinal(b, timeout: 60)
        let failedAfter = Date().timeIntervalSince(restarted)
        print("[measure] netwait: B failed \(failedAfter) s after the restart")
        #expect(failedAfter < 5, "the wait before the restart counts: B failed \(failedAfter) s after it")
        #expect(finalB.state == .failed)
        #expect(finalB.error?.code == .network)
        #expect(finalB.error?.message.contains("--give-up-after") == true, "\(finalB.error?.message ?? "")")
        #expect(try h.status(a).state == .completed && h.status(c).state == .completed, "the others keep their end")
    }
}
