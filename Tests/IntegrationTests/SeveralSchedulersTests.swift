import Foundation
import StowageProtocol
import StowageTestSupport
import Testing
import ZeroMQ

/// Clients given several scheduler endpoints (`--scheduler a,b`, `STOWAGE_SCHEDULER`), with the real executables:
/// workers and `stowctl` with a dead endpoint first reach the live scheduler and a title completes; a list that
/// cannot be read is a usage error naming the item; a play report sent twice with one id is counted once; `stowctl`
/// goes past a frozen leader of a farm over CURVE to the scheduler that took over.
@Suite("Several scheduler endpoints", .serialized)
struct SeveralSchedulersTests {
    func ipc(_ h: Harness, _ name: String) -> String { "ipc://" + h.root.appendingPathComponent("\(name).ipc").path }
    func live(_ h: Harness) -> String { "ipc://" + h.home.appendingPathComponent("run/scheduler.ipc").path }

    @Test func workersAndStowctlWithADeadSchedulerFirstReachTheLiveOne() throws {
        let h = try Harness(name: "several")
        try h.makeSample(seconds: 6)
        try h.startOrigin()
        try h.startScheduler()
        let (dead, live) = (ipc(h, "dead"), live(h))
        let both = ["STOWAGE_SCHEDULER": "\(dead),\(live)"]
        for kind in ["license", "download", "integrity"] { try h.startWorker(kind, environment: both) }
        try h.waitUntil(timeout: 60, "three workers registered at the second endpoint") {
            (try? h.workers().count) == 3
        }
        let (code, out, err) = try h.stowctlStreams(
            ["submit", h.originURL + "/master.m3u8", "--scheduler", "\(dead),\(live)"])
        #expect(code == 0, "\(err)")
        let token = try #require(out.split(separator: "\n").last.map(String.init))
        #expect(try h.waitForFinal(token).state == .completed)
        let log = h.log("download")
        #expect(log.contains("scheduler silent; reconnecting") && log.contains("next=\(live)"), "\(log.suffix(2000))")
        // Nothing leads anywhere: one error naming each endpoint.
        let dead2 = ipc(h, "dead2")
        let (none, _, message) = try h.stowctlStreams(["workers", "--scheduler", "\(dead),\(dead2)"])
        #expect(none == 1 && message.contains("no scheduler leads"), "\(message)")
        #expect(message.contains("\(dead): nothing listening") && message.contains("\(dead2): nothing listening"))
    }

    @Test func aListThatCannotBeReadIsAUsageErrorNamingTheItem() throws {
        let h = try Harness(name: "lists")
        let a = "tcp://127.0.0.1:7700"
        let cases: [([String], [String: String], String)] = [
            (["--scheduler", "\(a),"], [:], "item 2 of '\(a),' is empty"),
            (["--scheduler", "\(a),\(a)"], [:], "'\(a)' is named twice"),
            ([], ["STOWAGE_SCHEDULER": "\(a),udp://b:1"], "STOWAGE_SCHEDULER='\(a),udp://b:1': 'udp://b:1' is not"),
        ]
        for (arguments, environment, message) in cases {
            let worker = try h.spawn("bad-worker", "stowage-download-worker", arguments, environment: environment)
            worker.waitUntilExit()
            #expect(worker.terminationStatus == 2, "a usage error")
            #expect(h.log("bad-worker").contains(message), "\(h.log("bad-worker"))")
            try? FileManager.default.removeItem(at: h.root.appendingPathComponent("bad-worker.log"))
        }
        let (code, _, err) = try h.stowctlStreams(["workers", "--scheduler", "\(a),,tcp://b:1"])
        #expect(code == 2 && err.contains("item 2 of '\(a),,tcp://b:1' is empty"), "\(err)")
    }

    @Test func aPlayReportSentTwiceWithOneIdIsCountedOnce() throws {
        let h = try Harness(name: "receipts")
        try h.makeSample(seconds: 4)
        try h.startOrigin()
        try h.startScheduler()
        let token = try h.submit("/master.m3u8")  // no workers: the title waits, and may be reported on
        let context = try Context()
        var socket = try context.socket(.dealer)
        defer { socket.close(linger: 0) }
        try socket.connect(live(h))
        func send(_ seconds: Double, _ id: String) throws -> ReplyBody {
            let request = ClientRequest(
                requestID: UUID().uuidString, operation: .played(token: token, seconds: seconds, reportID: id))
            try socket.send(FrameCodec.encode(.request, request))
            let ready = try Poller.poll([.socket(socket, .readable)], timeoutMilliseconds: 10_000)
            guard ready[0].contains(.readable), let frames = try socket.receive(dontWait: true) else {
                throw HarnessError("no answer to played")
            }
            return try FrameCodec.body(ClientReply.self, from: FrameCodec.decode(frames)).result
        }
        #expect(try send(4, "gw-1") == .ok)
        #expect(try send(4, "gw-1") == .ok, "the repeat is acknowledged")
        #expect(try send(3, "gw-2") == .ok)
        func stored(_ sql: String) throws -> String {
            let store = h.home.appendingPathComponent("stowage.sqlite").path
            return try TestMedia.shOutput("sqlite3 '\(store)' \"\(sql)\"", in: h.root).1
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try stored("SELECT playedSeconds FROM title WHERE token = '\(token)'") == "7.0")
        #expect(try stored("SELECT id FROM playReceipt ORDER BY id") == "gw-1\ngw-2")
        // After a restart (a takeover recovers the same way) the receipt still holds.
        #expect(h.terminate("scheduler") == 0)
        try h.startScheduler()
        socket.close(linger: 0)
        socket = try context.socket(.dealer)
        try socket.connect(live(h))
        #expect(try send(4, "gw-1") == .ok)
        #expect(try stored("SELECT playedSeconds FROM title WHERE token = '\(token)'") == "7.0")
    }

    @Test func aGatewayServesAPlayThroughAFrozenSchedulerAndMetersItOnce() throws {
        let h = try Harness(name: "gw-follow")
        try h.makeSample(seconds: 6)
        try h.startOrigin()
        try h.startPipeline()
        let token = try h.submit("master.m3u8", ["--wait"])
        let secret = try h.addDevice("tv")
        let gateway = try h.startGateway(
            address: "127.0.0.1", environment: ["STOWAGE_SCHEDULER": "\(ipc(h, "dead")),\(live(h))"])
        let (path, seconds) = try h.firstSegment(token)
        let url = gateway + "/titles/\(token)/\(path)"
        let auth = ["Authorization: Bearer \(secret)"]
        #expect(try h.httpStatus(url, headers: auth, extra: ["-m", "30"]) == 200, "through the second endpoint")
        var served = 1
        h.freeze("scheduler")
        // Past the credential's (1 s) and the title's (3 s) own lives, and until the gateway has kept a play-time
        // report no scheduler took: served from what the gateway holds.
        let frozen = ContinuousClock.now
        func kept() -> Bool { h.log("gateway").contains("play-time reports kept: no scheduler answers") }
        while ContinuousClock.now - frozen < .seconds(5) || !kept() {
            guard ContinuousClock.now - frozen < .seconds(40) else { throw HarnessError("no report was kept") }
            let status = try h.httpStatus(url, headers: auth, extra: ["-m", "30"])
            #expect(status == 200, "served while no scheduler answers")
            if status == 200 { served += 1 }
        }
        h.thaw("scheduler")
        func stored(_ column: String) throws -> Double {
            let store = h.home.appendingPathComponent("stowage.sqlite").path
            let out = try TestMedia.shOutput(
                "sqlite3 '\(store)' \"SELECT \(column) FROM title WHERE token = '\(token)'\"", in: h.root
            ).1
            return Double(out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        let expected = Double(served) * seconds
        try h.waitUntil(timeout: 60, "the play time of \(served) segments reported") {
            try stored("playedSeconds") >= expected - 0.01
        }
        // A report sent to the frozen scheduler was read by it once thawed, and sent again by the gateway: once.
        // Held for three report periods (a repeat would land within one).
        let settled = ContinuousClock.now
        while ContinuousClock.now - settled < .seconds(3) {
            let played = try stored("playedSeconds")
            #expect(abs(played - expected) < 0.01, "each second counted once: \(played) s, \(expected) s served")
            if abs(played - expected) >= 0.01 { break }
            try h.waitUntil(timeout: 1, "a moment") { ContinuousClock.now - settled > .milliseconds(200) }
        }
        #expect(try stored("playCount") == 1, "one play")
    }

    /// Two schedulers of a farm over CURVE sharing one store
    /// (``Harness/startSchedulerFarm(count:leaderLease:store:curve:extra:)``): the first, leading, frozen
    /// (`SIGSTOP`: connected in the kernel, no handshake) past its lease; `stowctl` with both endpoints goes past it
    /// to the one that took over, for a read and for a change alike, which cannot have reached the frozen one.
    @Test func stowctlGoesPastAFrozenSchedulerOfAFarm() throws {
        let h = try Harness(name: "farm")
        let farm = try h.startSchedulerFarm(count: 2, leaderLease: "2s", curve: true)
        func stowctl(_ arguments: [String]) throws -> (Int32, String, String) {
            try h.stowctlStreams(arguments + farm.clientArguments)
        }
        try h.waitUntil(timeout: 30, "the first scheduler leads and answers") {
            guard !h.termsLed(farm[0]).isEmpty else { return false }
            return try stowctl(["workers", "--json"]).0 == 0
        }
        h.freeze(farm[0].name)
        defer { h.thaw(farm[0].name) }
        try h.waitUntil(timeout: 15, "the second scheduler to take over") { !h.termsLed(farm[1]).isEmpty }
        let started = ContinuousClock.now
        let (read, _, readError) = try stowctl(["workers", "--json"])
        #expect(read == 0, "\(readError)")
        #expect(ContinuousClock.now - started < .seconds(9), "one endpoint's share of the timeout, then the next")
        let (change, _, changeError) = try stowctl(["pause", "0000000000000000"])
        #expect(change == 1 && changeError.contains("no title with token '0000000000000000'"), "\(changeError)")
        #expect(!changeError.contains("may have been applied"))
        #expect(h.isRunning(farm[0].name) && h.isRunning(farm[1].name))
    }
}
