import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Many titles through a fault-injecting origin while the scheduler and the workers are killed with
/// `kill -9` and restarted. Sized by STOWAGE_CHAOS_TITLES / STOWAGE_CHAOS_ROUNDS (CI runs the small
/// default; Benchmarks/chaos.sh runs a big one).
@Suite("Chaos", .serialized)
struct ChaosTests {
    @Test func everyTitleCompletesThroughFaultsAndKills() throws {
        let env = ProcessInfo.processInfo.environment
        let titles = Int(env["STOWAGE_CHAOS_TITLES"] ?? "") ?? 10
        let rounds = Int(env["STOWAGE_CHAOS_ROUNDS"] ?? "") ?? 8
        let seconds = Int(env["STOWAGE_CHAOS_SECONDS"] ?? "") ?? 6
        let h = try Harness(name: "chaos")
        try h.makeSample(seconds: seconds)
        for t in 0..<titles {
            _ = try TestMedia.sh("mkdir -p t\(t) && cp -r v360p vEnglish master.m3u8 t\(t)/", in: h.media)
        }
        try h.startOrigin(latencyMilliseconds: 60, extra: ["--faults", "0.15", "--seed", "7"])
        let perHost = 4, titlesAtOnce = 2
        let schedulerArgs = ["--per-host", "\(perHost)", "--titles", "\(titlesAtOnce)", "--per-title", "3"]
        try h.startScheduler(schedulerArgs)
        try h.startWorker("license")
        try h.startWorker("integrity")
        try h.startWorker("download", name: "download-a")
        try h.startWorker("download", name: "download-b")
        try h.waitUntil(timeout: 20, "workers registered") { (try? h.workers().count) == 4 }
        var tokens: [String] = []
        for t in 0..<titles { tokens.append(try h.submit("t\(t)/master.m3u8", ["--name", "chaos-\(t)"])) }

        var kills = 0, busyKills = 0, integrityKills = 0
        var idleKills: [String] = []
        /// Whether the process holds work now (a worker: tasks in hand; the scheduler: leases out), waiting up
        /// to 15 s for it to get some (a restarted process may wait out a retry's backoff first): kills are meant to
        /// hit busy processes.
        func busy(_ name: String) -> Bool {
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline {
                if let workers = try? h.workers() {
                    if name == "scheduler"
                        ? workers.contains(where: { $0.tasksInHand > 0 })
                        : workers.contains(where: { $0.pid == h.pid(name) && $0.tasksInHand > 0 })
                    {
                        return true
                    }
                }
                usleep(50_000)
            }
            return false
        }
        /// The download worker to kill: the preferred one if it holds work, else the other if that one does (near
        /// the end one worker may hold the last tasks alone), else the preferred one, counted idle.
        func downloadTarget(preferring first: String) -> String {
            let other = first == "download-a" ? "download-b" : "download-a"
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline {
                if let workers = try? h.workers() {
                    for name in [first, other]
                    where workers.contains(where: { $0.pid == h.pid(name) && $0.tasksInHand > 0 }) {
                        return name
                    }
                }
                usleep(50_000)
            }
            return first
        }
        /// Whether some title still has media to fetch: only then must a download worker or the scheduler be busy
        /// (on a loaded machine the titles can all be fetched before the last rounds).
        func mediaLeft() -> Bool {
            let fetching: Set<TitleState> = [.requested, .licensing, .licensed, .downloading, .suspended]
            // One `list` (not a status per title): the check must not slow the kills down.
            guard let (code, out) = try? h.stowctl(["list", "--json"]), code == 0,
                let titles = try? JSONDecoder().decode([TitleStatus].self, from: Data(out.utf8))
            else { return true }
            return titles.contains { fetching.contains($0.state) }
        }
        var skipped: [String] = []
        func killAndRestart(_ wanted: String) throws {
            if wanted != "integrity" && !mediaLeft() {
                skipped.append(wanted)
                return
            }
            let name = wanted.hasPrefix("download") ? downloadTarget(preferring: wanted) : wanted
            if name == "integrity" {
                integrityKills += 1
            } else if busy(name) {
                busyKills += 1
            } else if !mediaLeft() {
                skipped.append(name)
                return
            } else {
                idleKills.append("\(name) (kill \(kills + 1))")
            }
            h.kill9(name)
            kills += 1
            if name == "scheduler" {
                try h.startScheduler(schedulerArgs)
            } else {
                try h.startWorker(name.hasPrefix("download") ? "download" : "integrity", name: name)
            }
            try h.waitUntil(timeout: 20, "\(name) back") {
                (try? h.workers())?.filter(\.alive).count ?? 0 >= 4
                    && (name == "scheduler" || (try? h.workers())?.contains { $0.pid == h.pid(name) } == true)
            }
        }
        for round in 0..<rounds {
            try killAndRestart(round % 3 == 2 ? "scheduler" : (round % 2 == 0 ? "download-a" : "download-b"))
            if round % 4 == 3 { try killAndRestart("integrity") }
        }
        var finals: [TitleStatus] = []
        for token in tokens { finals.append(try h.waitForFinal(token, timeout: 300)) }
        for (t, status) in finals.enumerated() {
            #expect(status.state == .completed, "chaos-\(t): \(String(describing: status.error))")
            guard let playlist = status.localPlaylist else { continue }
            let dir = URL(fileURLWithPath: playlist).deletingLastPathComponent()
            _ = try OfflineCopy.compare(
                localMedia: dir.appendingPathComponent("video/index.m3u8"),
                originMedia: h.media.appendingPathComponent("t\(t)/v360p/index.m3u8"))
            _ = try OfflineCopy.compare(
                localMedia: dir.appendingPathComponent("audio-en/index.m3u8"),
                originMedia: h.media.appendingPathComponent("t\(t)/vEnglish/index.m3u8"))
        }
        let stats = try h.originSnapshot()
        let files = finals.reduce(0) { $0 + $1.segmentsTotal }
        let complete = h.originLog().filter {
            $0.count > 3 && $0[2].hasSuffix(".ts") && ($0[3] == "200" || $0[3] == "206")
        }.count
        print(
            "[measure] chaos: \(titles) titles, \(files) files, \(kills) kills (\(busyKills) busy, \(skipped.count) not"
                + " made: nothing left), faults \(stats.faults),"
                + " \(complete) complete answers, origin max connections \(stats.maxConnections), max "
                + "requests in flight \(stats.maxInFlight), max titles at once \(stats.maxTitlesAtOnce)"
        )
        #expect(stats.maxInFlight <= perHost, "requests in flight at the origin never exceed --per-host")
        #expect(stats.maxConnections <= perHost, "connections open at the origin never exceed --per-host")
        #expect(stats.maxTitlesAtOnce <= titlesAtOnce, "titles downloading at once never exceed --titles")
        #expect(complete - files <= kills * perHost, "files fetched again are at most those in flight at the kills")
        for kind in ["reset", "truncate", "unavailable", "stall"] {
            #expect((stats.faults[kind] ?? 0) >= 1, "the origin injected at least one \(kind): \(stats.faults)")
        }
        // Verifications are short, so an integrity worker is often idle when it dies; the others must be busy while
        // media is left to fetch, and the kills made must be enough to mean something.
        let hit = "\(busyKills) of \(kills - integrityKills); idle: \(idleKills); not made, nothing left: \(skipped)"
        #expect(
            busyKills == kills - integrityKills, "every scheduler and download-worker kill hit a busy process (\(hit))")
        #expect(busyKills >= 3, "at least three kills hit a busy process (\(hit))")
    }
}
