import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// `--quota` with the real processes: a quota that holds two titles, a pinned one, one being played through
/// `stowctl play`, and a fourth title that must wait until a title may go (a play counts as under way for 90 s
/// after its last sign, so room is made here by an unpin).
@Suite("Quota", .serialized)
struct QuotaTests {
    @Test func aThirdTitleEvictsTheUnpinnedOneAndWaitsWhileNothingMayGo() throws {
        let h = try Harness(name: "quota")
        try h.makeSample(seconds: 6)
        for t in 0..<4 {
            _ = try TestMedia.sh("mkdir -p t\(t) && cp -r v360p vEnglish master.m3u8 t\(t)/", in: h.media)
        }
        try h.startOrigin()
        // The size of one title, from a download without a quota.
        try h.startPipeline()
        let a = try h.submit("t0/master.m3u8", ["--name", "a"])
        let size = try h.waitForFinal(a).bytesDownloaded
        #expect(size > 0)
        #expect(h.terminate("scheduler") == 0)
        let quota = ["--quota", "\(size * 5 / 2)", "--evict-protect", "3s"]
        try h.startScheduler(quota)
        try h.waitUntil(timeout: 20, "workers back") { (try? h.workers().count) == 3 }

        let b = try h.submit("t1/master.m3u8", ["--name", "b"])
        #expect(try h.waitForFinal(b).state == .completed, "two titles fit")
        #expect(try h.stowctl(["pin", a]).0 == 0)
        #expect(try h.status(a).pinned == true)

        // A third one: b, not pinned, goes (once the scheduler can tell plays from none, 15 s after its start).
        // `submit --wait` says which title went for it (issue #47: an eviction is told where the operator looks).
        let waited = try h.stowctlStreams(["submit", h.originURL + "t2/master.m3u8", "--name", "c", "--wait"])
        #expect(waited.status == 0, "\(waited.stderr)")
        let c = String(waited.stdout.split(separator: "\n").last ?? "")
        #expect(try h.status(c).state == .completed)
        #expect(
            waited.stderr.contains("\(c): evicted \(b) (b) to make room under the quota"), "\(waited.stderr)")
        let gone = try h.stowctlStreams(["status", b, "--json"])
        // With --json the failure is JSON on stdout (issue #47): {"error": {"code": "not-found", …}}, and says where
        // the title went.
        #expect(gone.status == 1 && gone.stdout.contains("\"not-found\""), "b was evicted: \(gone.stdout)")
        #expect(gone.stdout.contains("was evicted at") && gone.stdout.contains("for \(c)"), "\(gone.stdout)")
        #expect(!FileManager.default.fileExists(atPath: h.home.appendingPathComponent("titles/\(b)").path))
        #expect(try h.status(a).state == .completed, "the pinned title stays")

        // c is being played and a is pinned: a fourth title waits, suspended for the quota.
        _ = try h.startPlay(c)
        try h.waitUntil(timeout: 10, "c's play recorded") { (try? h.status(c))?.lastPlayedAt != nil }
        let d = try h.submit("t3/master.m3u8", ["--name", "d"])
        try h.waitUntil(timeout: 30, "d waiting for the quota") {
            let s = try h.status(d)
            return s.state == .suspended && s.suspendedReason == .quota
        }
        let (_, waitingText) = try h.stowctl(["status", d])
        #expect(waitingText.contains("quota") && !waitingText.contains("disk-full"), "\(waitingText)")
        let (_, evictable) = try h.stowctl(["list", "--evictable", "--json"])
        #expect(!evictable.contains(a) && !evictable.contains(c), "neither a pinned nor a played title may go")
        #expect(try h.status(c).state == .completed)

        // Unpinned, a (never played) may go: d comes in by itself, and c, still being played, stays.
        #expect(try h.stowctl(["unpin", a]).0 == 0)
        #expect(try h.waitForFinal(d, timeout: 30).state == .completed)
        #expect(try h.stowctlStreams(["status", a, "--json"]).status == 1, "a was evicted once unpinned")
        #expect(try h.status(c).state == .completed, "the title being played stays")
        #expect(h.terminate("play-\(c)") != nil)
    }
}
