import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Integrity at rest: verify, repair, orphans.
@Suite("Integrity at rest", .serialized)
struct AtRestTests {
    @Test func verifyFindsAFlippedByteAndRepairFixesIt() throws {
        let h = try Harness(name: "rest")
        try h.makeSample(seconds: 6)
        try h.startOrigin()
        try h.startPipeline()
        let (code, out) = try h.stowctl(["submit", h.originURL + "master.m3u8", "--wait"])
        #expect(code == 0)
        let token = try #require(out.split(separator: "\n").last.map(String.init))
        let master = try #require(try h.status(token).localPlaylist)
        let originFrames = try OfflineCopy.framemd5(h.originURL + "v360p/index.m3u8")
        #expect(try h.stowctl(["verify", token]).0 == 0, "a sound copy verifies")
        // Flip one byte in the middle of a stored segment.
        let segment = URL(fileURLWithPath: master).deletingLastPathComponent().appendingPathComponent(
            "video/seg-000001.ts")
        var bytes = try Data(contentsOf: segment)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: segment)
        let (bad, report) = try h.stowctl(["verify", token])
        #expect(bad == 1)
        #expect(report.contains("video/seg-000001.ts"), "\(report)")
        let status = try h.status(token)
        #expect(!status.playableOffline && status.error?.code == .integrity)
        #expect(try h.stowctl(["playable", token]).0 == 1)
        let before = h.originRequests(matching: ".ts")
        #expect(try h.stowctl(["verify", token, "--repair"]).0 == 0)
        #expect(h.originRequests(matching: ".ts") == before + 1, "only the bad file is fetched again")
        #expect(try h.status(token).playableOffline)
        #expect(try OfflineCopy.framemd5(master) == originFrames)
        // Deleted by hand: reported by verify, restored by repair.
        try FileManager.default.removeItem(at: URL(fileURLWithPath: master).deletingLastPathComponent())
        #expect(try h.stowctl(["verify", token]).0 == 1)
        #expect(!(try h.status(token).playableOffline))
        #expect(try h.stowctl(["verify", token, "--repair"]).0 == 0)
        #expect(try OfflineCopy.framemd5(master) == originFrames)
        // Orphans: a folder the store does not know and a stray partial file.
        let orphan = h.home.appendingPathComponent("titles/0123456789abcdef")
        try FileManager.default.createDirectory(at: orphan, withIntermediateDirectories: true)
        let stray = URL(fileURLWithPath: master).deletingLastPathComponent().appendingPathComponent(
            "video/seg-000000.ts.part")
        try Data([1, 2, 3]).write(to: stray)
        let (gc, removed) = try h.stowctl(["gc"])
        #expect(gc == 0 && removed.contains("2 orphan(s) removed"), "\(removed)")
        #expect(
            !FileManager.default.fileExists(atPath: orphan.path) && !FileManager.default.fileExists(atPath: stray.path))
        #expect(try h.stowctl(["verify", token]).0 == 0)
    }

    @Test func backgroundScrubFindsDamageWhileTheTitleStaysCompleted() throws {
        let h = try Harness(name: "scrub")
        try h.makeSample(seconds: 4)
        try h.startOrigin()
        try h.startPipeline(schedulerArguments: ["--scrub-interval", "1", "--scrub-budget", "50000000"])
        let (code, out) = try h.stowctl(["submit", h.originURL + "master.m3u8", "--wait"])
        #expect(code == 0)
        let token = try #require(out.split(separator: "\n").last.map(String.init))
        let master = try #require(try h.status(token).localPlaylist)
        let segment = URL(fileURLWithPath: master).deletingLastPathComponent().appendingPathComponent(
            "audio-en/seg-000000.ts")
        var bytes = try Data(contentsOf: segment)
        bytes[bytes.count - 7] ^= 0x01
        try bytes.write(to: segment)
        try h.waitUntil(timeout: 45, "the scrub to find the damaged file") {
            (try? h.status(token).error?.code) == .integrity
        }
        let status = try h.status(token)
        #expect(status.state == .completed && !status.playableOffline)
        #expect(status.error?.message.contains("audio-en/seg-000000.ts") == true)
    }
}
