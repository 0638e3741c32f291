import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Two real schedulers on one real PostgreSQL store (issue #45's "done when"), workers, `stowctl` and the gateway
/// given both endpoints, a real origin serving ffmpeg-made media: the leader killed (`kill -9`) mid-download, the
/// leader frozen (`SIGSTOP`) past its lease and resumed, and the server itself restarted under a leader. Each time
/// the title completes byte-identical, no verified file is fetched again and plays are counted once. A missing
/// PostgreSQL fails these tests (``TestPostgres``).
@Suite("A farm on PostgreSQL takes over", .serialized)
struct FarmTakeoverTests {
    /// A farm of two on a fresh database of `server` (statements that change rows logged with their scheduler's
    /// name and pid), the origin throttled so a download takes a while, the three workers and `stowctl` following
    /// both endpoints; returns once the first scheduler leads and the workers are registered.
    static func farm(_ h: Harness, _ server: TestPostgres, lease: String, throttle: Int = 60_000) throws -> Farm {
        try h.makeSample(seconds: 12)
        try h.startOrigin(throttleBytesPerSecond: throttle)
        let url = try server.createDatabase()
        let database = String(url.split(separator: "/").last ?? "")
        _ = try server.psql(database, "ALTER DATABASE \(database) SET log_statement = 'mod'")
        try url.write(to: h.root.appendingPathComponent("store-url"), atomically: true, encoding: .utf8)
        h.storeServer = server
        let farm = try h.startSchedulerFarm(count: 2, leaderLease: lease, store: url)
        h.clientEnvironment = ["STOWAGE_SCHEDULER": farm.schedulerList]
        try h.waitUntil(timeout: 15, "the first scheduler to lead") { !h.termsLed(farm[0]).isEmpty }
        for kind in ["license", "download", "integrity"] { try h.startWorker(kind, environment: h.clientEnvironment) }
        try h.waitUntil(timeout: 30, "three workers registered") { (try? h.workers().count) == 3 }
        return farm
    }

    /// Submits the origin's title and waits until it is mid-download: two segments done, more than two files left.
    static func downloading(_ h: Harness) throws -> String {
        let token = try h.submit("master.m3u8")
        try h.waitUntil(timeout: 60, "the download under way") { ((try? h.status(token))?.segmentsDone ?? 0) >= 2 }
        let left = try h.storeQuery("SELECT COUNT(*) FROM resource WHERE token = '\(token)' AND state != 'verified'")
        #expect((Int(left) ?? 0) > 2, "mid-download: \(left) files left")
        return token
    }

    /// Waits for the title to complete and compares its offline video with the origin's, byte for byte.
    static func completesByteIdentical(_ h: Harness, _ token: String) throws {
        let final = try h.waitForFinal(token, timeout: 150)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        let playlist = try #require(final.localPlaylist)
        let compared = try OfflineCopy.compare(
            localMedia: URL(fileURLWithPath: playlist).deletingLastPathComponent()
                .appendingPathComponent("video/index.m3u8"),
            originMedia: h.media.appendingPathComponent("v360p/index.m3u8"))
        #expect(compared > 0)
    }

    /// Copies a private server's log beside the test's logs (its own folder goes with the test process), for
    /// `STOWAGE_TEST_KEEP=1`.
    static func keepLog(_ h: Harness, _ server: TestPostgres) {
        try? server.serverLog().write(
            to: h.root.appendingPathComponent("postgres.log"), atomically: true, encoding: .utf8)
    }

    static func stored(_ h: Harness, _ token: String, _ column: String) throws -> Double {
        Double(try h.storeQuery("SELECT \(column) FROM title WHERE token = '\(token)'")) ?? -1
    }

    /// The leader killed mid-download: the standby leads within the default 10 s lease, a device plays through the
    /// gateway before, during and after, `stowctl status` answers during and after, the title completes
    /// byte-identical, no verified file is fetched again, and the plays are counted once.
    @Test func theLeaderKilledMidDownloadHandsOverWithinTheLease() throws {
        let h = try Harness(name: "pg-kill")
        let farm = try Self.farm(h, try TestPostgres.shared(), lease: "10s")
        let (a, b) = (farm[0], farm[1])
        // A completed title to play, from a second origin of the same media at full speed.
        let fast = try h.startOrigin(named: "fast")
        let (code, out) = try h.stowctl(["submit", fast.url + "master.m3u8", "--wait"])
        let played = try #require(code == 0 ? out.split(separator: "\n").last.map(String.init) : nil, "\(out)")
        let secret = try h.addDevice("tv")
        let gateway = try h.startGateway(address: "127.0.0.1", environment: h.clientEnvironment)
        let (path, seconds) = try h.firstSegment(played)
        func play() throws -> Int {
            try h.httpStatus(
                gateway + "/titles/\(played)/\(path)", headers: ["Authorization: Bearer \(secret)"],
                extra: ["-m", "30"])
        }
        #expect(try play() == 200, "a play before")
        try h.waitUntil(timeout: 30, "the play before metered") { try Self.stored(h, played, "playedSeconds") > 0 }

        let token = try Self.downloading(h)
        let verifiedBefore = try h.verifiedPaths(token)
        #expect(!verifiedBefore.isEmpty)
        let killedAt = ContinuousClock.now
        h.kill9(a.name)
        #expect(try play() == 200, "a play during the takeover, from what the gateway holds")
        let during = try h.stowctlStreams(["status", token, "--json"])
        #expect(during.status == 0, "stowctl status during the takeover: \(during.stderr)")
        try h.waitUntil(timeout: 15, "b to lead") { LeaderTakeoverTests.leaderStats(b) != nil }
        let takeover = ContinuousClock.now - killedAt
        print("[measure] PostgreSQL farm: takeover after kill -9 (10 s lease): \(takeover)")
        #expect(takeover < .seconds(10))
        #expect(try play() == 200, "a play after")
        #expect(try h.stowctlStreams(["status", token, "--json"]).status == 0, "stowctl status after")

        try Self.completesByteIdentical(h, token)
        for path in verifiedBefore { #expect(h.originGets(path: path) == 1, "\(path) fetched again") }
        // Three segments served, each second metered once in one play: held for three report periods.
        let expected = 3 * seconds
        try h.waitUntil(timeout: 60, "the play time of three segments metered") {
            try Self.stored(h, played, "playedSeconds") >= expected - 0.01
        }
        let settled = ContinuousClock.now
        while ContinuousClock.now - settled < .seconds(3) {
            let now = try Self.stored(h, played, "playedSeconds")
            #expect(abs(now - expected) < 0.01, "each second counted once: \(now) s, \(expected) s served")
            if abs(now - expected) >= 0.01 { break }
            usleep(200_000)
        }
        #expect(try Self.stored(h, played, "playCount") == 1, "one play")
    }

    /// The leader frozen past its lease mid-download: the standby leads; the old leader, resumed, steps down and
    /// changes no row (the server's statement log names each writer), and hands out no work (no file fetched twice
    /// after it resumed, none verified before fetched again); `stowctl status` answers while it is frozen.
    @Test func aFrozenLeaderResumedWritesNothingAndHandsOutNoWork() throws {
        let h = try Harness(name: "pg-freeze")
        let server = try TestPostgres.startPrivate()
        defer { Self.keepLog(h, server) }
        // A slow origin: the download goes on well past the takeover and the resume.
        let farm = try Self.farm(h, server, lease: "3s", throttle: 15_000)
        let (a, b) = (farm[0], farm[1])
        let (pidA, pidB) = (try #require(h.pid(a.name)), try #require(h.pid(b.name)))
        // The statements that change rows, by one scheduler, since `mark`; a standby's claim of the lead (which
        // changes nothing while the lease is held: the leader row is checked below) aside.
        func writes(by pid: Int32, after mark: Int) -> [Substring] {
            String(decoding: server.serverLog().utf8.dropFirst(mark), as: UTF8.self).split(separator: "\n").filter {
                $0.contains("] stowage-scheduler[\(pid)] LOG:") && ($0.contains("execute") || $0.contains("statement:"))
                    && !$0.contains("UPDATE leader SET term = term + 1")
            }
        }
        let token = try Self.downloading(h)
        #expect(!writes(by: pidA, after: 0).isEmpty, "the log names the leader's writes")

        let frozenAt = ContinuousClock.now
        h.freeze(a.name)
        defer { h.thaw(a.name) }
        // What a verified before it froze (a result on its way to it is lost with its term, and fetched again).
        let verifiedBefore = try h.verifiedPaths(token)
        let during = try h.stowctlStreams(["status", token, "--json"])
        #expect(during.status == 0, "stowctl status while the leader is frozen: \(during.stderr)")
        try h.waitUntil(timeout: 15, "b to lead") { LeaderTakeoverTests.leaderStats(b) != nil }
        print("[measure] PostgreSQL farm: takeover from a frozen leader (3 s lease): \(ContinuousClock.now - frozenAt)")
        let term = try #require(LeaderTakeoverTests.leaderStats(b)?.leader?.term)
        #expect(term >= 2)

        #expect(try h.status(token).state != .completed, "still downloading when a resumes")
        let (serverMark, logMark) = (server.serverLog().utf8.count, h.logMark(a.name))
        let resumedAt = Date().timeIntervalSince1970
        h.thaw(a.name)
        try h.waitUntil(timeout: 10, "a to step down") {
            String(decoding: h.log(a.name).utf8.dropFirst(logMark), as: UTF8.self).contains("deposed")
        }
        try Self.completesByteIdentical(h, token)
        let after = String(decoding: h.log(a.name).utf8.dropFirst(logMark), as: UTF8.self)
        #expect(after.contains("no renewal of the lease"), "\(after)")
        #expect(!after.contains("the store could not commit"), "it tried no write: \(after)")
        // The store: no row changed by a after it resumed; b wrote the rest; the leader row is b's term.
        #expect(writes(by: pidA, after: serverMark).isEmpty, "\(writes(by: pidA, after: serverMark))")
        #expect(!writes(by: pidB, after: serverMark).isEmpty, "the new leader's writes are logged")
        let row = try h.storeQuery("SELECT term, holder FROM leader").split(separator: "|")
        #expect(row.first == "\(term)" && row.last?.contains("-\(pidB)-") == true, "\(row)")
        // The origin: nothing fetched twice since a resumed, nothing verified before fetched again.
        let since = h.originLog().filter { $0.count > 2 && $0[1] == "GET" && (Double($0[0]) ?? 0) >= resumedAt }
        let paths = since.map { String($0[2].split(separator: "?")[0]) }
        #expect(Set(paths).count == paths.count, "fetched twice after a resumed: \(paths)")
        for path in verifiedBefore { #expect(h.originGets(path: path) == 1, "\(path) fetched again") }
    }

    /// The PostgreSQL server restarted (`pg_ctl restart -m fast`, every session ended) under a leader mid-download:
    /// the scheduler connects again, the farm leads on, and the title completes byte-identical.
    @Test func theFarmGoesOnAfterItsPostgreSQLRestarts() throws {
        let h = try Harness(name: "pg-restart")
        let server = try TestPostgres.startPrivate()
        defer { Self.keepLog(h, server) }
        let farm = try Self.farm(h, server, lease: "3s", throttle: 15_000)
        let token = try Self.downloading(h)
        let mark = server.serverLog().utf8.count
        let restartedAt = ContinuousClock.now
        try server.restart()
        #expect(try h.status(token).state != .completed, "still downloading after the restart")
        try h.waitUntil(timeout: 30, "a scheduler to use the store again") {
            farm.schedulers.contains { h.log($0.name).contains("connected to the store again") }
        }
        print(
            "[measure] PostgreSQL farm: store used again after a server restart: \(ContinuousClock.now - restartedAt)")
        try Self.completesByteIdentical(h, token)
        // Rows written after the restart, by a scheduler's new session (the log names each writer).
        let after = String(decoding: server.serverLog().utf8.dropFirst(mark), as: UTF8.self)
        #expect(after.contains("] stowage-scheduler[") && after.contains("UPDATE resource SET state"))
        #expect(farm.schedulers.allSatisfy { h.isRunning($0.name) })
        #expect(farm.schedulers.contains { LeaderTakeoverTests.leaderStats($0) != nil }, "one leads")
    }
}
