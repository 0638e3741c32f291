import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Resumption under real faults: wall-clock steps, a scheduler killed after the operator changed the limits, signed
/// URLs that expire mid-title. Hosts that go away are `NetworkWaitTests`.
@Suite("Resumption under real-world faults", .serialized)
struct ResumptionTests {
    @Test func wallClockStepsDeclareNoWorkerDeadAndDelayNothing() throws {
        let h = try Harness(name: "clock")
        try h.makeSample(seconds: 12)
        try h.startOrigin(throttleBytesPerSecond: 120_000)
        let (schedulerClock, schedulerFake) = try h.fakeClock("scheduler")
        let (workerClock, workerFake) = try h.fakeClock("download")
        // Under libfaketime a Swift program sees no arguments: the limit comes from the environment.
        try h.startScheduler(environment: schedulerFake.merging(["STOWAGE_PER_TITLE": "2"]) { $1 })
        try h.startWorker("license")
        try h.startWorker("integrity")
        try h.startWorker("download", environment: workerFake)
        try h.waitUntil(timeout: 20, "three workers registered") { (try? h.workers().count) == 3 }
        let ids = Set(try h.workers().map(\.id))
        let token = try h.submit("master.m3u8", ["--bitrate", "2000000"])
        try h.waitUntil(timeout: 60, "the download under way") { ((try? h.status(token))?.segmentsDone ?? 0) >= 1 }
        #expect(try h.status(token).state == .downloading)

        // +10 min on the scheduler, then on the worker; then −1 h on both (from real time).
        // Each step is held for 4 s (more than a worker's 3 s liveness) while heartbeats flow: an observation
        // window, not a wait for something.
        try "+600".write(to: schedulerClock, atomically: true, encoding: .utf8)
        usleep(4_000_000)
        try "+600".write(to: workerClock, atomically: true, encoding: .utf8)
        usleep(4_000_000)
        try "-3600".write(to: schedulerClock, atomically: true, encoding: .utf8)
        try "-3600".write(to: workerClock, atomically: true, encoding: .utf8)
        // The scheduler's clock guard (every 10 s) sees the step back: proof the fake clock reached it.
        try h.waitUntil(timeout: 30, "the scheduler to see its wall clock go back") {
            h.log("scheduler").contains("the wall clock went back")
        }
        let final = try h.waitForFinal(token, timeout: 150)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(Set(try h.workers().map(\.id)) == ids, "the same workers, none re-registered")
        #expect(try h.workers().allSatisfy(\.alive))
        #expect(!h.log("scheduler").contains("declared dead"))
        #expect(!h.log("scheduler").contains("re-issuing"))
        #expect(!h.log("download").contains("reconnecting"))
        #expect(!h.log("download").contains("register again"))
        // The worker's own log stamps prove its wall clock was an hour back when it stopped.
        #expect(h.terminate("download") == 0)
        let stamp = try #require(h.log("download").split(separator: "\n").last?.split(separator: " ").first)
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.dateFormat = "yyyy-MM-dd'T'HH:mm:ssZ"
        let logged = try #require(format.date(from: String(stamp)), "log stamp \(stamp)")
        #expect(abs(Date().timeIntervalSince(logged) - 3600) < 120, "worker's last log line is stamped \(stamp)")
        let dir = URL(fileURLWithPath: try #require(final.localPlaylist)).deletingLastPathComponent()
        _ = try OfflineCopy.compare(
            localMedia: dir.appendingPathComponent("video/index.m3u8"),
            originMedia: h.media.appendingPathComponent("v720p/index.m3u8"))
    }

    func limits(_ h: Harness) throws -> LimitsInfo {
        let (code, out) = try h.stowctl(["limits", "--json"])
        #expect(code == 0)
        return try JSONDecoder().decode(LimitsInfo.self, from: Data(out.utf8))
    }

    @Test func limitsSetLiveHoldAfterKill9AndFlagsOverrideThemForARun() throws {
        let h = try Harness(name: "limits")
        try h.makeSample(seconds: 12)
        try h.startOrigin(latencyMilliseconds: 150)
        try h.startPipeline()
        #expect(try h.stowctl(["limits", "--per-host", "2", "--per-title", "4", "--bandwidth", "0"]).0 == 0)
        h.kill9("scheduler")
        try h.startScheduler()
        try h.waitUntil(timeout: 20, "workers back") { (try? h.workers().count) == 3 }
        let l = try limits(h)
        #expect(l.perHost == 2 && l.perTitle == 4, "stored limits in force after kill -9: \(l)")
        // The origin sees no more than the stored per-host limit.
        let token = try h.submit("master.m3u8")
        let final = try h.waitForFinal(token)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        // Asked once the workers' idle connections are closed (ss), so the question is not one more connection.
        try h.waitForOriginIdle()
        let snapshot = try h.originSnapshot()
        #expect(snapshot.maxInFlight <= 2 && snapshot.maxConnections <= 2, "origin saw \(snapshot)")
        #expect(snapshot.maxInFlight == 2, "the limit was reached, so it was what held the origin to 2")

        // A flag at start overrides the stored value for that run, and says so.
        #expect(h.terminate("scheduler") == 0)
        try h.startScheduler(["--per-host", "3"])
        try h.waitUntil(timeout: 20, "workers back") { (try? h.workers().count) == 3 }
        #expect(try limits(h).perHost == 3)
        #expect(try limits(h).perTitle == 4)
        #expect(h.log("scheduler").contains("--per-host 3 given at start overrides the stored 2"))
        // --reset: back to the defaults, also after a restart.
        #expect(try h.stowctl(["limits", "--reset"]).0 == 0)
        h.kill9("scheduler")
        try h.startScheduler()
        try h.waitUntil(timeout: 20, "workers back") { (try? h.workers().count) == 3 }
        let reset = try limits(h)
        #expect(reset.perHost == 8 && reset.perTitle == 6 && reset.titles == 2, "\(reset)")
    }

    @Test func signedURLsThatExpireMidTitleAreRenewedByReResolving() throws {
        let h = try Harness(name: "signed")
        try h.makeSample(seconds: 12)
        try h.startOrigin(throttleBytesPerSecond: 200_000, extra: ["--sign-urls", "3s"])
        try h.startPipeline(schedulerArguments: ["--per-title", "1"])
        let token = try h.submit("master.m3u8", ["--bitrate", "2000000"])
        let final = try h.waitForFinal(token, timeout: 180)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        let log = h.originLog()
        let refused = log.filter { $0.count > 3 && $0[2].contains(".ts") && $0[3] == "403" }
        #expect(!refused.isEmpty, "URLs expired during the download (the origin refused some)")
        let masters = log.filter { $0.count > 3 && $0[2].hasPrefix("/master.m3u8") }.count
        #expect(masters >= 2, "the title was re-resolved from its URL (\(masters) master fetches)")
        let dir = URL(fileURLWithPath: try #require(final.localPlaylist)).deletingLastPathComponent()
        _ = try OfflineCopy.compare(
            localMedia: dir.appendingPathComponent("video/index.m3u8"),
            originMedia: h.media.appendingPathComponent("v720p/index.m3u8"))
    }

    @Test func queuedTitlesShowRequestedWithTheirPlaceAndUnknownTokensAreNotFound() throws {
        let h = try Harness(name: "queued")
        try h.makeSample(seconds: 8)
        for t in 0..<3 {
            _ = try TestMedia.sh("mkdir -p t\(t) && cp -r v360p vEnglish master.m3u8 t\(t)/", in: h.media)
        }
        try h.startOrigin(throttleBytesPerSecond: 100_000)
        try h.startPipeline(schedulerArguments: ["--titles", "1", "--per-title", "1"])
        let tokens = try (0..<3).map { try h.submit("t\($0)/master.m3u8") }
        try h.waitUntil(timeout: 60, "one title downloading, two queued") {
            let s = tokens.compactMap { try? h.status($0) }
            return s.filter { $0.state == .downloading }.count == 1 && s.filter { $0.queuePosition != nil }.count == 2
        }
        let states = try tokens.map { try h.status($0) }
        #expect(states[0].state == .downloading && states[0].queuePosition == nil)
        #expect(states[1].state == .requested && states[1].queuePosition == 1)
        #expect(states[2].state == .requested && states[2].queuePosition == 2)
        for t in tokens { #expect(try h.waitForFinal(t).state == .completed) }

        let missing = try h.stowctlStreams(["status", "0123456789abcdef", "--json"])
        #expect(missing.status == 1)
        #expect(
            missing.stdout.contains("\"not-found\"") && missing.stdout.contains("0123456789abcdef"), "\(missing.stdout)"
        )
    }

    /// A worker stopped (SIGSTOP) past its lease, its answer arriving meanwhile, then resumed (SIGCONT): the
    /// scheduler had declared it dead and given the work out again, so its late result is ignored (and logged) and
    /// changes nothing: the title keeps no license until the acquisition issued again is answered, and keeps that
    /// one. The scheduler is held (SIGSTOP) while the worker sends, so the late result is the first thing it reads
    /// from the worker, before the worker can learn it was forgotten.
    @Test func aLateResultFromAWorkerStoppedPastItsLeaseIsIgnored() throws {
        let h = try Harness(name: "late-result")
        try TestMedia.fmp4(into: h.media, singleFile: false, seconds: 4)
        let policy = h.root.appendingPathComponent("policy.json")
        let grants = h.root.appendingPathComponent("grants.log")
        func setPolicy(rentalSeconds: Int, delayMilliseconds: Int) throws {
            let rule =
                #""grantKind": "rental", "maxRentalSeconds": \#(rentalSeconds), "delayMs": \#(delayMilliseconds)"#
            try "{\"default\": {\(rule)}}".write(to: policy, atomically: true, encoding: .utf8)
        }
        // The first acquisition is granted 10 minutes, answered 5 s after it is asked.
        try setPolicy(rentalSeconds: 600, delayMilliseconds: 5_000)
        try h.startOrigin(extra: ["--license-policy", policy.path, "--grant-log", grants.path])
        let metrics = try Harness.freePort()
        try h.startScheduler()
        try h.spawn("license", "stowage-license-worker", ["--metrics", "\(metrics)"])
        try h.startWorker("download")
        try h.startWorker("integrity")
        try h.waitUntil(timeout: 20, "three workers registered") { (try? h.workers().count) == 3 }
        let licenseWorker = try #require(try h.workers().first { $0.kind == .license })
        let worker = try #require(h.pid("license")), scheduler = try #require(h.pid("scheduler"))
        func licensesDone() throws -> Double {
            Prometheus.value(try Prometheus.scrape(metrics), #"stowage_tasks_total{work="license",outcome="ok"}"#) ?? 0
        }
        let token = try h.submit("index.m3u8", ["--rental", "1h", "--license-url", h.originURL + "license"])

        // The license server has the request (it logs the grant as it decides, then waits): stop the worker.
        try h.waitUntil(timeout: 30, "the license request at the license server") {
            ((try? String(contentsOf: grants, encoding: .utf8)) ?? "").contains("\"granted\"")
        }
        kill(worker, SIGSTOP)
        var resumed = false
        defer { if !resumed { kill(worker, SIGCONT) } }
        try h.waitUntil(timeout: 30, "the stopped worker declared dead") {
            h.log("scheduler").contains("worker declared dead")
        }
        try h.waitUntil(timeout: 30, "the license server's late answer sent") {
            h.originLog().contains { $0.count > 3 && $0[1] == "POST" && $0[2].hasPrefix("/license") && $0[3] == "200" }
        }
        let before = try h.status(token)
        #expect(before.license == nil && !before.state.isFinal, "\(before.state) \(String(describing: before.license))")
        // The acquisition issued again is granted an hour, answered after 3 s (time to look at the title first).
        try setPolicy(rentalSeconds: 3_600, delayMilliseconds: 3_000)
        kill(scheduler, SIGSTOP)
        let delivered: Bool
        do {
            defer { kill(scheduler, SIGCONT) }
            kill(worker, SIGCONT)
            resumed = true
            delivered =
                (try? h.waitUntil(timeout: 2.5, "the worker to finish its task with the late answer") {
                    try licensesDone() == 1
                }) != nil
        }
        // Mostly the late result reaches the scheduler, which ignores it. Sometimes the worker first reads a
        // "register again" the scheduler sent before it was held (a message the worker had queued reached it after
        // it was declared dead) and abandons the task: the late answer then never leaves the worker. Either way
        // it must license nothing, which is what the rest checks.
        try h.waitUntil(timeout: 20, "the late result ignored, or the task abandoned by the worker") {
            h.log("scheduler").contains("ignored result from unregistered worker")
                || h.log("scheduler").contains("ignored stale result")
                || (!delivered && h.log("license").contains("abandoning stale tasks"))
        }
        print("[measure] late-result: the late answer \(delivered ? "reached the scheduler" : "was abandoned")")
        let after = try h.status(token)
        #expect(after.license == nil, "the late result licensed nothing: \(String(describing: after.license))")
        #expect(after.state == before.state || after.state == .licensing, "\(before.state) -> \(after.state)")

        let final = try h.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        let license = try #require(final.license)
        let requested = try #require(license.requestedAt.flatMap { ISO8601DateFormatter().date(from: $0) })
        let expires = try #require(license.expiresAt.flatMap { ISO8601DateFormatter().date(from: $0) })
        #expect(
            abs(expires.timeIntervalSince(requested) - 3_600) < 5,
            "the license is the one issued again (1 h), not the late one (10 min)")
        // At least the late acquisition and the one issued again (the worker may be told to register twice, once
        // for its heartbeat and once for its result, and take the work twice: #30's report).
        let granted = try String(contentsOf: grants, encoding: .utf8).split(separator: "\n")
        #expect(granted.count >= 2, "both acquisitions reached the license server: \(granted)")
        print("[measure] late-result: \(granted.count) license acquisitions")
        #expect(
            try h.workers().contains { $0.kind == .license && $0.pid == licenseWorker.pid && $0.alive },
            "the resumed worker registered again")
    }
}
