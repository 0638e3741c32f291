import Foundation
import StowageProtocol
import StowageTestSupport
import Testing
import ZeroMQ

/// Two real schedulers sharing one store (SQLite here: one file, two homes; the farm tests on PostgreSQL use the
/// same harness): one leads, the other answers as a standby naming it; `kill -9` of the leader and a leader frozen
/// past its lease both hand the lead over within the lease, a frozen leader resumed steps down at once, and a graceful
/// stop hands it over at once.
@Suite("Schedulers that take over", .serialized)
struct LeaderTakeoverTests {
    /// One request straight over ZeroMQ (as stowctl sends it), its reply, or nil after `timeout` seconds.
    static func ask(_ endpoint: String, _ operation: ClientOperation, timeout: Int = 3) throws -> ReplyBody? {
        let context = try Context()
        let socket = try context.socket(.dealer)
        defer { socket.close() }
        try socket.connect(endpoint)
        try socket.send(FrameCodec.encode(.request, ClientRequest(requestID: "1", operation: operation)))
        let ready = try Poller.poll([.socket(socket, .readable)], timeoutMilliseconds: timeout * 1000)
        guard ready[0].contains(.readable), let frames = try socket.receive(dontWait: true) else { return nil }
        return try FrameCodec.body(ClientReply.self, from: try FrameCodec.decode(frames)).result
    }

    /// The stats of `scheduler` if it leads now, else nil (a standby's answer, no answer).
    static func leaderStats(_ scheduler: FarmScheduler) -> SchedulerStats? {
        guard case .stats(let stats) = try? ask(scheduler.endpoint, .stats), stats.leads == true else { return nil }
        return stats
    }

    static func standbyAnswer(_ scheduler: FarmScheduler) -> StandbyAnswer? {
        guard case .standby(let answer) = try? ask(scheduler.endpoint, .stats) else { return nil }
        return answer
    }

    @Test func theStandbyTakesOverAfterKillAndAfterAFrozenLeadersLease() throws {
        let h = try Harness(name: "takeover")
        let ports = [try Harness.freePort(), try Harness.freePort()]
        let farm = try h.startSchedulerFarm(count: 2, leaderLease: "2s") { ["--metrics", "127.0.0.1:\(ports[$0])"] }
        let (a, b) = (farm[0], farm[1])
        try h.waitUntil(timeout: 10, "a to lead") { Self.leaderStats(a) != nil }
        let (onA, onB) = (try Prometheus.scrape(ports[0]), try Prometheus.scrape(ports[1]))
        #expect(Prometheus.value(onA, "stowage_leader") == 1 && Prometheus.value(onA, "stowage_leader_term") == 1)
        #expect(Prometheus.value(onB, "stowage_leader") == 0 && Prometheus.value(onB, "stowage_leader_term") == 0)
        let first = try #require(Self.leaderStats(a)?.leader)
        #expect(first.holder.contains("-\(h.pid(a.name) ?? 0)-") && first.endpoints == [a.endpoint])
        // b is a standby: it answers every request with where the leader is, and leads nothing.
        let standby = try #require(Self.standbyAnswer(b))
        #expect(standby == StandbyAnswer(term: first.term, leaderEndpoints: [a.endpoint], leaderSince: first.since))
        #expect(h.termsLed(b).isEmpty)
        // `stowctl stats` on the leader says it leads.
        let (status, text) = try h.stowctl(["stats"])
        #expect(status == 0 && text.contains("term \(first.term)") && text.contains("(this scheduler)"), "\(text)")

        // kill -9: b leads in a later term, at once since a's process is gone from this host (from another host it
        // would wait for a's lease to run out, as the freeze below does).
        let killedAt = ContinuousClock.now
        h.kill9(a.name)
        try h.waitUntil(timeout: 10, "b to lead") { Self.leaderStats(b) != nil }
        let takeover = ContinuousClock.now - killedAt
        print("[measure] takeover after kill -9 on the same host (2 s lease): \(takeover)")
        #expect(takeover < .seconds(1.5))
        let second = try #require(Self.leaderStats(b)?.leader)
        #expect(second.term > first.term && second.endpoints == [b.endpoint])

        // a again: a standby now, naming b.
        try h.start(a)
        let nowStandby = try #require(Self.standbyAnswer(a))
        #expect(nowStandby.term == second.term && nowStandby.leaderEndpoints == [b.endpoint])

        // b frozen past its lease: a takes over; b, resumed, steps down before serving anything.
        let frozen = try #require(h.pid(b.name))
        let frozenAt = ContinuousClock.now
        kill(frozen, SIGSTOP)
        defer { kill(frozen, SIGCONT) }
        try h.waitUntil(timeout: 10, "a to lead while b is frozen") { Self.leaderStats(a) != nil }
        print("[measure] takeover from a frozen leader (2 s lease): \(ContinuousClock.now - frozenAt)")
        let third = try #require(Self.leaderStats(a)?.leader)
        #expect(third.term > second.term)
        let mark = h.logMark(b.name)
        kill(frozen, SIGCONT)
        try h.waitUntil(timeout: 10, "b to step down") {
            String(decoding: h.log(b.name).utf8.dropFirst(mark), as: UTF8.self).contains("deposed")
        }
        let after = String(decoding: h.log(b.name).utf8.dropFirst(mark), as: UTF8.self)
        #expect(after.contains("no renewal of the lease"), "\(after)")
        #expect(!after.contains("the store could not commit"), "\(after)")  // it tried no write
        #expect(Self.standbyAnswer(b)?.term == third.term)
        #expect(Self.leaderStats(a)?.leader == third)  // the store's row is a's term, untouched by b

        // SIGTERM gives the lease up: b leads at its next claim, well before the lease would have run out.
        let stoppedAt = ContinuousClock.now
        #expect(h.terminate(a.name) == 0)
        try h.waitUntil(timeout: 10, "b to lead after a's graceful stop") { Self.leaderStats(b) != nil }
        let handover = ContinuousClock.now - stoppedAt
        print("[measure] takeover after SIGTERM with a 2 s lease: \(handover)")
        #expect(handover < .seconds(1.2))
        #expect(h.log(a.name).contains("the lead is released"))
    }

    /// One scheduler on its own store, killed and started again, leads again at once (its old lease's holder is
    /// gone from this host), not after the 10 s lease: the embedded store's restart is as quick as before.
    @Test func aSchedulerRestartedAfterKillLeadsAtOnce() throws {
        let h = try Harness(name: "relead")
        let farm = try h.startSchedulerFarm(count: 1, leaderLease: "10s")
        try h.waitUntil(timeout: 10, "the scheduler to lead") { Self.leaderStats(farm[0]) != nil }
        h.kill9(farm[0].name)
        let restarted = ContinuousClock.now
        try h.start(farm[0])
        try h.waitUntil(timeout: 15, "the restarted scheduler to lead") { Self.leaderStats(farm[0]) != nil }
        let waited = ContinuousClock.now - restarted
        print("[measure] lead again after kill -9 and a restart (10 s lease): \(waited)")
        #expect(waited < .seconds(3))
        #expect(Self.leaderStats(farm[0])?.leader?.term == 2)
        #expect(h.log(farm[0].name).contains("the leader's process is gone from this host"))
    }

    /// A download whose leader is frozen past its lease, deposed, then leads again once the other scheduler dies:
    /// the title completes byte-identical, and no file verified before the freeze is fetched again. (The workers
    /// know one endpoint, the first scheduler's: they wait for it to lead again.)
    @Test func aDownloadGoesOnWhenItsSchedulerLeadsAgain() throws {
        let h = try Harness(name: "leadback")
        try h.makeSample(seconds: 12)
        try h.startOrigin(throttleBytesPerSecond: 60_000)
        let farm = try h.startSchedulerFarm(count: 2, leaderLease: "2s")
        let (a, b) = (farm[0], farm[1])
        try h.waitUntil(timeout: 10, "a to lead") { Self.leaderStats(a) != nil }
        for kind in ["license", "download", "integrity"] { try h.startWorker(kind) }
        try h.waitUntil(timeout: 20, "three workers registered") { (try? h.workers().count) == 3 }
        let token = try h.submit("master.m3u8")
        try h.waitUntil(timeout: 60, "the download under way") { ((try? h.status(token))?.segmentsDone ?? 0) >= 2 }

        let frozen = try #require(h.pid(a.name))
        kill(frozen, SIGSTOP)
        defer { kill(frozen, SIGCONT) }
        let verifiedBefore = try h.verifiedPaths(token)
        let store = h.home.appendingPathComponent("stowage.sqlite").path
        let (_, left) = try TestMedia.shOutput(
            "sqlite3 '\(store)' \"SELECT COUNT(*) FROM resource WHERE token = '\(token)' AND state != 'verified'\"",
            in: h.root)
        #expect((Int(left.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 2, "frozen mid-download: \(left)")
        try h.waitUntil(timeout: 10, "b to lead while a is frozen") { Self.leaderStats(b) != nil }
        kill(frozen, SIGCONT)
        try h.waitUntil(timeout: 10, "a to step down") { h.log(a.name).contains("deposed") }
        h.kill9(b.name)
        try h.waitUntil(timeout: 10, "a to lead again") { Self.leaderStats(a) != nil }
        #expect(try #require(Self.leaderStats(a)?.leader?.term) >= 3)

        let final = try h.waitForFinal(token, timeout: 150)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        let playlist = try #require(final.localPlaylist)
        let dir = URL(fileURLWithPath: playlist).deletingLastPathComponent()
        let compared = try OfflineCopy.compare(
            localMedia: dir.appendingPathComponent("video/index.m3u8"),
            originMedia: h.media.appendingPathComponent("v360p/index.m3u8"))
        #expect(compared > 0)
        #expect(!verifiedBefore.isEmpty)
        for path in verifiedBefore { #expect(h.originGets(path: path) == 1, "\(path) fetched again") }
    }
}
