import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// A small filesystem (tmpfs) under `titles/` fills up in the middle of a download.
@Suite("Disk full", .serialized)
struct DiskFullTests {
    @Test func suspendsWhenTheDiskFillsAndResumesWhenSpaceReturns() throws {
        let h = try Harness(name: "full")
        let titles = h.home.appendingPathComponent("titles")
        try FileManager.default.createDirectory(at: titles, withIntermediateDirectories: true)
        // A missing prerequisite fails the test with what is missing; it never passes without running.
        try #require(getuid() == 0, "the disk-full test mounts a tmpfs: run the suite as root (CI does)")
        let (mounted, why) = try TestMedia.shOutput(
            "mount -t tmpfs -o size=6m stowage-test-tmpfs '\(titles.path)' 2>&1", in: h.root)
        try #require(mounted == 0, "cannot mount a 6 MB tmpfs under titles/: \(why)")
        defer { _ = try? TestMedia.sh("umount -l '\(titles.path)'", in: h.root) }
        try h.makeSample(seconds: 8)
        try h.startOrigin(throttleBytesPerSecond: 250_000)
        try h.startPipeline(schedulerArguments: ["--disk-cushion", "0", "--per-title", "2"])
        let token = try h.submit("master.m3u8", ["--bitrate", "2000000"])
        try h.waitUntil(timeout: 60, "two files verified") { ((try? h.status(token))?.segmentsDone ?? 0) >= 2 }
        let filler = titles.appendingPathComponent("filler")
        _ = try? TestMedia.sh("dd if=/dev/zero of='\(filler.path)' bs=64k 2>/dev/null || true", in: h.root)
        try h.waitUntil(timeout: 60, "the title to be suspended for disk-full") {
            let s = try? h.status(token)
            return s?.state == .suspended && s?.error?.code == .diskFull
        }
        let suspended = try h.status(token)
        #expect(suspended.suspendedReason == .diskFull)
        #expect(suspended.error?.message.contains("no space left") == true)
        try FileManager.default.removeItem(at: filler)
        let final = try h.waitForFinal(token, timeout: 120)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.error == nil)
        let dir = URL(fileURLWithPath: try #require(final.localPlaylist)).deletingLastPathComponent()
        _ = try OfflineCopy.compare(
            localMedia: dir.appendingPathComponent("video/index.m3u8"),
            originMedia: h.media.appendingPathComponent("v720p/index.m3u8"))
        _ = try OfflineCopy.compare(
            localMedia: dir.appendingPathComponent("audio-en/index.m3u8"),
            originMedia: h.media.appendingPathComponent("vEnglish/index.m3u8"))
    }
}
