import StowageProtocol
import Testing

@testable import StowageHLS

/// `submit --iframes`: the offline master keeps the kept video's I-frame playlist; entries inside kept segments
/// point at the local files with the ranges moved, others are planned as files of their own.
@Suite("HLS I-frame playlists")
struct IFramePlanTests {
    let masterURL = "http://o.test/t/master.m3u8"
    let master = """
        #EXTM3U
        #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360
        low/v.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720
        mid/v.m3u8
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=90000,RESOLUTION=640x360,URI="low/iframes.m3u8"
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=200000,RESOLUTION=1280x720,URI="mid/iframes.m3u8"
        """
    /// Two whole segments and a single-file variant's two ranges.
    let video = """
        #EXTM3U
        #EXT-X-TARGETDURATION:2
        #EXT-X-MAP:URI="init.mp4"
        #EXTINF:2,
        a.m4s
        #EXTINF:2,
        b.m4s
        #EXT-X-ENDLIST
        """

    func iFrames(_ entries: String) -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-I-FRAMES-ONLY\n#EXT-X-MAP:URI=\"init.mp4\"\n"
            + "\(entries)#EXT-X-ENDLIST\n"
    }

    func plan(_ selection: Selection, iFrameText: String?) throws -> ResolvedPlan {
        let m = try MasterPlaylist(text: master, url: masterURL)
        let choice = try RenditionSelector.select(m, selection)
        let v = try MediaPlaylist(text: video, url: "http://o.test/t/low/v.m3u8")
        let i = try iFrameText.map { try MediaPlaylist(text: $0, url: "http://o.test/t/low/iframes.m3u8") }
        return try OfflinePlanner.plan(
            master: m, choice: choice, inputs: [.init(kind: .video, playlist: v, rendition: nil)],
            iFrames: choice.iFrames == nil ? nil : i)
    }

    @Test func byDefaultTheOfflineMasterHasNoIFrameStream() throws {
        let plan = try plan(Selection(), iFrameText: nil)
        #expect(!plan.masterPlaylist.contains("I-FRAME"))
        #expect(plan.renditions.count == 1)
    }

    @Test func theIFrameStreamOfTheKeptResolutionIsChosen() throws {
        let m = try MasterPlaylist(text: master, url: masterURL)
        #expect(try RenditionSelector.select(m, Selection(iframes: true)).iFrames?.uri == "low/iframes.m3u8")
        let mid = try RenditionSelector.select(m, Selection(bitrate: 3_000_000, iframes: true))
        #expect(mid.iFrames?.uri == "mid/iframes.m3u8")
        #expect(try RenditionSelector.select(m, Selection(iframes: false)).iFrames == nil)
    }

    /// Ranges inside kept segments: the local I-frame playlist names the local segment files with the same ranges,
    /// and the plan has no file more than without `--iframes`.
    @Test func rangesInsideKeptSegmentsCostNothing() throws {
        let entries = "#EXTINF:2,\n#EXT-X-BYTERANGE:4490@84\na.m4s\n#EXTINF:2,\n#EXT-X-BYTERANGE:4118@84\nb.m4s\n"
        let plan = try plan(Selection(iframes: true), iFrameText: iFrames(entries))
        #expect(plan.resources.count == (try self.plan(Selection(), iFrameText: nil)).resources.count)
        #expect(
            plan.masterPlaylist.contains(
                "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=90000,RESOLUTION=640x360,URI=\"iframes/index.m3u8\""),
            "\(plan.masterPlaylist)")
        let local = try #require(plan.renditions.last)
        #expect(local.localPath == "iframes/index.m3u8" && local.kind == .video)
        #expect(
            local.playlist == """
                #EXTM3U
                #EXT-X-TARGETDURATION:2
                #EXT-X-I-FRAMES-ONLY
                #EXT-X-MAP:URI="../video/init-0.mp4"
                #EXTINF:2,
                #EXT-X-BYTERANGE:4490@84
                ../video/seg-000000.m4s
                #EXTINF:2,
                #EXT-X-BYTERANGE:4118@84
                ../video/seg-000001.m4s
                #EXT-X-ENDLIST

                """, "\(local.playlist)")
    }

    /// Entries in files the title does not keep are fetched, each range as a file of its own (no range offline).
    @Test func rangesOutsideKeptSegmentsAreFetched() throws {
        let entries = "#EXTINF:2,\n#EXT-X-BYTERANGE:1000@0\nkeys.mp4\n#EXTINF:2,\n#EXT-X-BYTERANGE:900@1000\nkeys.mp4\n"
        let plan = try plan(Selection(iframes: true), iFrameText: iFrames(entries))
        let extra = plan.resources.filter { $0.rendition == 1 }
        #expect(extra.map(\.url) == ["http://o.test/t/low/keys.mp4", "http://o.test/t/low/keys.mp4"])
        #expect(extra.map(\.rangeOffset) == [0, 1000] && extra.map(\.rangeLength) == [1000, 900])
        #expect(extra.allSatisfy { $0.kind == .segment && $0.duration == 0 && $0.container == .other })
        let local = try #require(plan.renditions.last).playlist
        #expect(!local.contains("BYTERANGE") && local.contains("iframe-000000.mp4\n"), "\(local)")
    }
}
