import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// `play` of a title that is still downloading: what is on disk is served from disk, the rest comes from
/// the origin on demand, and the download's files and accounting are untouched.
@Suite("Playback during download", .serialized)
struct StreamingPlayTests {
    @Test func playWhileDownloadingServesDiskAndStreamsTheRest() throws {
        let h = try Harness(name: "stream")
        try h.makeSample(seconds: 8)
        try h.startOrigin(latencyMilliseconds: 600)
        try h.startPipeline()
        #expect(try h.stowctl(["limits", "--per-title", "1"]).0 == 0)
        let originFrames = try OfflineCopy.framemd5(h.originURL + "v360p/index.m3u8")
        let token = try h.submit("master.m3u8", ["--purchase", "--play-count", "3"])
        let video = h.home.appendingPathComponent("titles/\(token)/video")
        func stored() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: video.path)) ?? []).filter { $0.hasSuffix(".ts") }
                .sorted()
        }
        try h.waitUntil(timeout: 60, "a first video segment on disk") { !stored().isEmpty }
        #expect(try h.stowctl(["pause", token]).0 == 0)
        try h.waitForIdleWorkers()  // what was in flight has settled...
        try h.waitForOriginLogToSettle(quiet: 1.2)  // ...and the origin (600 ms latency) has answered all it saw
        let before = try h.status(token)
        let onDisk = stored()
        #expect(before.state == .suspended)
        #expect(onDisk.count < 4, "the title must still be incomplete for this test: \(onDisk)")
        #expect(try h.stowctl(["playable", token]).0 == 1, "not playable offline before it is complete")

        let fetchedBefore = h.originLog().filter {
            $0.count > 2 && $0[2].hasPrefix("/v360p/") && $0[2].hasSuffix(".ts")
        }.count
        let url = try h.startPlay(token)
        #expect(try h.status(token).license?.playsRemaining == 2, "the play is counted")
        let media = url.replacingOccurrences(of: "master.m3u8", with: "video/index.m3u8")
        #expect(try OfflineCopy.framemd5(media) == originFrames, "the same frames while downloading")
        let fetchedByPlay =
            h.originLog().filter { $0.count > 2 && $0[2].hasPrefix("/v360p/") && $0[2].hasSuffix(".ts") }.count
            - fetchedBefore
        #expect(fetchedByPlay == 4 - onDisk.count, "segments on disk are not fetched again (\(onDisk.count) on disk)")
        // The download's accounting and files are untouched by what play streamed.
        let after = try h.status(token)
        #expect(
            after.state == .suspended && after.segmentsDone == before.segmentsDone
                && after.bytesDownloaded == before.bytesDownloaded)
        #expect(stored() == onDisk, "play writes nothing into the title")
        _ = h.terminate("play-\(token)")

        #expect(try h.stowctl(["resume", token]).0 == 0)
        let final = try h.waitForFinal(token)
        #expect(final.state == .completed && final.bytesDownloaded == final.bytesExpected)
        let master = try #require(final.localPlaylist)
        #expect(try OfflineCopy.framemd5(master) == originFrames)
    }
}
