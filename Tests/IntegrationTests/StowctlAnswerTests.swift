import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Issue #47 item 4, the `stowctl` side of "a first hour without traps": a missing scheduler is said at once,
/// failures read `Error: [code] message` once, `--json` failures are JSON on stdout with the same exit codes, and
/// `devices sign` prints a whole URL. The real `stowctl`, scheduler and gateway.
@Suite("stowctl answers without traps", .serialized)
struct StowctlAnswerTests {
    /// `stowctl` with `STOWAGE_HOME` as given (nil: the harness's home); its status, outputs and time taken.
    func stowctl(_ h: Harness, _ arguments: [String], home: String? = nil) throws -> (
        status: Int32, stdout: String, stderr: String, seconds: Double
    ) {
        let p = Process()
        p.executableURL = h.bin.appendingPathComponent("stowctl")
        p.arguments = arguments
        var env = Harness.cleanEnvironment()
        env["STOWAGE_HOME"] = home ?? h.home.path
        p.environment = env
        let clock = ContinuousClock()
        let started = clock.now
        let r = try runCapturingStreams(p)
        let elapsed = clock.now - started
        return (
            r.status, r.stdout, r.stderr,
            Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        )
    }

    /// The `{"error": {code, message}}` object on stdout.
    func jsonError(_ stdout: String) throws -> TitleError {
        struct Body: Decodable { let error: TitleError }
        return try JSONDecoder().decode(Body.self, from: Data(stdout.utf8)).error
    }

    /// No home, a home with no scheduler, a scheduler killed (its socket left behind): each said at once with
    /// what was tried and what to do; a scheduler that is there but stopped still gets the request's timeout.
    @Test func noSchedulerIsSaidAtOnce() throws {
        let h = try Harness(name: "noscheduler")
        let nowhere = h.root.appendingPathComponent("no-such-home").path
        let noHome = try stowctl(h, ["list"], home: nowhere)
        print("[measure] stowctl list with no home: \(noHome.seconds) s")
        #expect(noHome.status == 1 && noHome.seconds < 2, "took \(noHome.seconds) s: \(noHome.stderr)")
        #expect(noHome.stderr.contains("no Stowage home at \(nowhere)"), "\(noHome.stderr)")
        #expect(noHome.stderr.contains("STOWAGE_HOME") && noHome.stderr.contains("Deploy/start.sh"))

        let empty = try stowctl(h, ["workers"])
        print("[measure] stowctl workers with no scheduler: \(empty.seconds) s")
        #expect(empty.status == 1 && empty.seconds < 2, "took \(empty.seconds) s: \(empty.stderr)")
        #expect(empty.stderr.contains("no scheduler is running for the home \(h.home.path)"), "\(empty.stderr)")
        let json = try stowctl(h, ["workers", "--json"])
        #expect(json.status == 1 && json.seconds < 2)
        #expect(try jsonError(json.stdout).code == .network, "\(json.stdout)")

        try h.startScheduler()
        #expect(try stowctl(h, ["workers"]).status == 0)
        let scheduler = try #require(h.pid("scheduler"))
        kill(scheduler, SIGSTOP)
        defer { kill(scheduler, SIGKILL) }
        let stopped = try stowctl(h, ["list"])
        print("[measure] stowctl list with a stopped scheduler: \(stopped.seconds) s")
        #expect(stopped.status == 1 && stopped.seconds >= 9, "a scheduler that is there is waited for")
        #expect(stopped.stderr.contains("no answer from the scheduler"), "\(stopped.stderr)")
        h.kill9("scheduler")
        let socket = h.home.appendingPathComponent("run/scheduler.ipc")
        #expect(FileManager.default.fileExists(atPath: socket.path), "kill -9 leaves the socket behind")
        let refused = try stowctl(h, ["list"])
        print("[measure] stowctl list after the scheduler was killed: \(refused.seconds) s")
        #expect(refused.status == 1 && refused.seconds < 2, "took \(refused.seconds) s: \(refused.stderr)")
        #expect(refused.stderr.contains("connection refused"), "\(refused.stderr)")
    }

    /// A failed command reads `Error: [code] message`, one "Error" only; with `--json` the same failure is
    /// `{"error": {code, message}}` on stdout and nothing on stderr, with the same exit status (2 for usage).
    @Test func failuresReadOnceAndAsJSONWithTheSameExitCodes() throws {
        let h = try Harness(name: "answers")
        try h.startScheduler()
        let plain = try stowctl(h, ["status", "--id", "no-such-title"])
        #expect(plain.status == 1)
        #expect(
            plain.stderr == "Error: [not-found] no title with id 'no-such-title'\n", "one line: \(plain.stderr)")
        #expect(plain.stderr.lowercased().components(separatedBy: "error").count == 2, "one 'Error'")

        let json = try stowctl(h, ["status", "--id", "no-such-title", "--json"])
        #expect(json.status == 1 && json.stderr.isEmpty, "\(json.stderr)")
        let error = try jsonError(json.stdout)
        #expect(error.code == .notFound && error.message == "no title with id 'no-such-title'", "\(json.stdout)")

        let usage = try stowctl(h, ["status", "--json"])
        #expect(usage.status == 2, "a usage error still exits 2: \(usage.stderr)")
        #expect(try jsonError(usage.stdout).code == .usage, "\(usage.stdout)")
        #expect(try jsonError(usage.stdout).message.contains("TOKEN"), "\(usage.stdout)")
        let plainUsage = try stowctl(h, ["status"])
        #expect(plainUsage.status == 2 && plainUsage.stdout.isEmpty)
        #expect(plainUsage.stderr.components(separatedBy: "Error").count == 2, "\(plainUsage.stderr)")

        let refused = try stowctl(h, ["devices", "revoke", "nobody", "--json"])
        let refusal = try jsonError(refused.stdout)
        #expect(refused.status == 1 && refusal.code == .notFound, "\(refused.stdout)")
    }

    /// `submit --wait --json` prints one JSON document: the final status when the title completed, else only the
    /// error object (naming the token), with exit 1.
    @Test func submitWaitJSONOfAFailedTitleIsOneDocument() throws {
        let h = try Harness(name: "wait-json")
        try h.makeSample(seconds: 2)
        try h.startOrigin()
        try h.startPipeline()
        let failed = try stowctl(h, ["submit", h.originURL + "no-such/master.m3u8", "--wait", "--json"])
        #expect(failed.status == 1, "\(failed.stderr)")
        let error = try jsonError(failed.stdout)
        #expect(error.message.contains("did not complete"), "\(failed.stdout)")
        let done = try stowctl(h, ["submit", h.originURL + "master.m3u8", "--wait", "--json"])
        #expect(done.status == 0, "\(done.stderr)")
        let status = try JSONDecoder().decode(TitleStatus.self, from: Data(done.stdout.utf8))
        #expect(status.state == .completed)
    }

    /// `list --evictable` just after a start says why it is empty (the start-up grace, and for how long more),
    /// and `stats` shows the grace; past it, the usual reasons.
    @Test func anEmptyEvictableListDuringTheStartUpGraceSaysWhy() throws {
        let h = try Harness(name: "evict-grace")
        try h.startScheduler(["--quota", "1G"])
        let early = try stowctl(h, ["list", "--evictable"])
        #expect(early.status == 0)
        #expect(early.stdout.contains("nothing evictable yet") && early.stdout.contains("s more"), "\(early.stdout)")
        let stats = try stowctl(h, ["stats"])
        #expect(stats.stdout.contains("evictions:   held"), "\(stats.stdout)")
        try h.waitUntil(timeout: 30, "the start-up grace to pass") {
            let json = try stowctl(h, ["stats", "--json"]).stdout
            return (try JSONDecoder().decode(SchedulerStats.self, from: Data(json.utf8))).evictionGraceSeconds == 0
        }
        let later = try stowctl(h, ["list", "--evictable"])
        #expect(later.stdout.hasPrefix("nothing evictable (no --quota"), "\(later.stdout)")
        #expect(!(try stowctl(h, ["stats"])).stdout.contains("evictions:"))
    }

    /// `devices sign` prints the whole URL: the gateway's `--public-url` (published in the home when it starts
    /// listening), or `--gateway-url`; `--json` has `url` beside `path`; the URL opens the page for the device.
    @Test func devicesSignPrintsTheWholeURL() throws {
        let h = try Harness(name: "sign-url")
        try h.startScheduler()
        let port = try Harness.freePort()
        let publicURL = "http://box.lan.test:\(port)"
        _ = try h.startGateway(address: "127.0.0.1", port: port, extra: ["--public-url", publicURL + "/"])
        _ = try h.addDevice("tv")
        let signed = try stowctl(h, ["devices", "sign", "tv", "/", "--expires", "1h"])
        #expect(signed.status == 0, "\(signed.stderr)")
        let url = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(url.hasPrefix(publicURL + "/?dev=tv&"), "\(url)")
        let (_, code) = try TestMedia.shOutput(
            "curl -s -o /dev/null -w '%{http_code}' --resolve box.lan.test:\(port):127.0.0.1 '\(url)'", in: h.root)
        #expect(code == "200", "the printed URL opens the library for the device")

        struct Signed: Decodable { let name, path, url: String }
        let json = try stowctl(h, ["devices", "sign", "tv", "/titles/x/master.m3u8", "--expires", "1h", "--json"])
        let parsed = try JSONDecoder().decode(Signed.self, from: Data(json.stdout.utf8))
        #expect(parsed.url == publicURL + parsed.path && parsed.path.hasPrefix("/titles/x/master.m3u8?"))
        let given = try stowctl(
            h, ["devices", "sign", "tv", "/", "--expires", "1h", "--gateway-url", "https://other.test:8443"])
        #expect(given.stdout.hasPrefix("https://other.test:8443/?dev=tv&"), "\(given.stdout)")
        let bad = try stowctl(h, ["devices", "sign", "tv", "/", "--expires", "1h", "--gateway-url", "box"])
        #expect(bad.status == 2 && bad.stderr.contains("--gateway-url"), "\(bad.stderr)")
    }
}
