import StowageProtocol
import Testing

@testable import StowageHLS

/// The recorder's merge of reloaded live playlists: new segments only, gaps for what left the window,
/// discontinuities, key rotation, changed init sections, the end, and the final VOD text.
@Suite("Live recording merge")
struct LiveRecorderTests {
    let url = "http://origin.test/live/index.m3u8"

    /// A live playlist with segments `first..<first+count` of `duration` seconds; extra lines by sequence.
    func live(
        first: Int, count: Int, duration: Double = 2, end: Bool = false, before: [Int: [String]] = [:],
        header: [String] = []
    ) throws -> MediaPlaylist {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:\(first)"]
        lines += header
        for s in first..<(first + count) {
            lines += before[s] ?? []
            lines += ["#EXTINF:\(duration),", "seg\(s).ts"]
        }
        if end { lines.append("#EXT-X-ENDLIST") }
        return try MediaPlaylist(text: lines.joined(separator: "\n") + "\n", url: url, allowLive: true)
    }

    func uris(_ delta: LiveRecorder.Delta) -> [String] { delta.entries.map(\.resource.url) }

    @Test func takesOnlyNewSegmentsAcrossReloadsAndEndsAtEndList() throws {
        var state = LiveRendition(folder: "video", kind: .video)
        let record = RecordRequest()
        let first = try LiveRecorder.merge(
            &state, rendition: 0, playlist: try live(first: 10, count: 3), keys: [], record: record)
        #expect(uris(first) == (10...12).map { "http://origin.test/live/seg\($0).ts" })
        #expect(
            first.lines.prefix(5) == [
                "#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2",
                "#EXT-X-MEDIA-SEQUENCE:10", "#EXT-X-PLAYLIST-TYPE:EVENT",
            ])
        #expect(
            first.entries.map(\.resource.localPath) == [
                "video/seg-000010.ts", "video/seg-000011.ts",
                "video/seg-000012.ts",
            ])
        #expect(first.changed && !first.ended)
        let same = try LiveRecorder.merge(
            &state, rendition: 0, playlist: try live(first: 10, count: 3), keys: [], record: record)
        #expect(same.entries.isEmpty && same.lines.isEmpty && !same.changed)
        let more = try LiveRecorder.merge(
            &state, rendition: 0, playlist: try live(first: 11, count: 4, end: true), keys: [], record: record)
        #expect(uris(more) == ["http://origin.test/live/seg13.ts", "http://origin.test/live/seg14.ts"])
        #expect(more.ended && state.ended)
        #expect(state.seconds == 10)
        let text = LiveRecorder.finalText((first.lines + more.lines).joined(separator: "\n"), longest: state.longest)
        #expect(text.contains("#EXT-X-PLAYLIST-TYPE:VOD\n") && !text.contains("EVENT"))
        #expect(text.hasSuffix("seg-000014.ts\n#EXT-X-ENDLIST\n"))
        #expect(try MediaPlaylist(text: text, url: url).segments.count == 5, "the final text is a valid VOD playlist")
    }

    @Test func segmentsThatLeftTheWindowBecomeAGapThatKeepsTheirSequenceNumbers() throws {
        var state = LiveRendition(folder: "video", kind: .video)
        let record = RecordRequest()
        let a = try LiveRecorder.merge(
            &state, rendition: 0, playlist: try live(first: 0, count: 3), keys: [], record: record)
        let b = try LiveRecorder.merge(
            &state, rendition: 0, playlist: try live(first: 6, count: 3), keys: [], record: record)
        #expect(b.missed == 3 && b.newSegments == 3)
        #expect(
            b.entries.filter { $0.isGap }.map(\.resource.localPath) == [
                "video/gap-000003.ts", "video/gap-000004.ts", "video/gap-000005.ts",
            ])
        #expect(b.entries.filter(\.isGap).allSatisfy { $0.resource.url.isEmpty && $0.resource.duration == 2 })
        let text = LiveRecorder.finalText((a.lines + b.lines).joined(separator: "\n"), longest: 2)
        let parsed = try MediaPlaylist(text: text, url: url)
        #expect(parsed.segments.map(\.mediaSequence) == Array(0...8), "gaps keep the numbering (implicit IVs)")
        #expect(parsed.segments.filter(\.isGap).count == 3)
        #expect(parsed.segments[6].discontinuity, "the segment after a gap starts a discontinuity")
    }

    @Test func discontinuitiesKeyRotationAndChangedMapsAreCarried() throws {
        var state = LiveRendition(folder: "video", kind: .video)
        let key1 = "#EXT-X-KEY:METHOD=AES-128,URI=\"k1.key\""
        let key2 = "#EXT-X-KEY:METHOD=AES-128,URI=\"k2.key\",IV=0x00000000000000000000000000000001"
        let playlist = try live(
            first: 0, count: 6,
            before: [
                0: [key1, "#EXT-X-MAP:URI=\"init0.mp4\""], 2: ["#EXT-X-DISCONTINUITY"], 3: [key2],
                4: ["#EXT-X-MAP:URI=\"init1.mp4\""],
            ])
        let existing = [PlannedKey(uri: "http://origin.test/live/k1.key", method: "AES-128")]
        let d = try LiveRecorder.merge(
            &state, rendition: 2, playlist: playlist, keys: existing, record: RecordRequest())
        #expect(d.newKeys.map(\.uri) == ["http://origin.test/live/k2.key"], "k1 is known: only k2 is new")
        #expect(d.lines.contains("#EXT-X-KEY:METHOD=AES-128,URI=\"/keys/0\""))
        #expect(d.lines.contains("#EXT-X-KEY:METHOD=AES-128,URI=\"/keys/1\",IV=0x00000000000000000000000000000001"))
        #expect(d.lines.filter { $0 == "#EXT-X-DISCONTINUITY" }.count == 1)
        let inits = d.entries.filter { $0.resource.kind == .initSection }
        #expect(inits.map(\.resource.localPath) == ["video/init-0.mp4", "video/init-1.mp4"])
        #expect(d.entries.allSatisfy { $0.resource.rendition == 2 })
        #expect(d.entries.filter { $0.resource.kind == .segment }.allSatisfy { $0.resource.encrypted })
        // A later reload with the same key and map writes neither again.
        let next = try LiveRecorder.merge(
            &state, rendition: 2,
            playlist: try live(first: 5, count: 2, before: [5: [key2, "#EXT-X-MAP:URI=\"init1.mp4\""]]),
            keys: existing + d.newKeys, record: RecordRequest())
        #expect(next.lines == ["#EXTINF:2,", "seg-000006.ts"])
    }

    @Test func durationLimitsTheRecordingAndLiveStartsNearTheEdge() throws {
        var state = LiveRendition(folder: "video", kind: .video)
        let d = try LiveRecorder.merge(
            &state, rendition: 0, playlist: try live(first: 0, count: 10),
            keys: [], record: RecordRequest(durationSeconds: 7, from: .start))
        #expect(d.newSegments == 4 && d.ended, "7 s of 2 s segments: four segments, then it ends")
        var edge = LiveRendition(folder: "video", kind: .video)
        let e = try LiveRecorder.merge(
            &edge, rendition: 0, playlist: try live(first: 100, count: 10), keys: [],
            record: RecordRequest(from: .live))
        #expect(e.entries.first?.resource.url == "http://origin.test/live/seg107.ts", "three target durations back")
        #expect(e.lines.contains("#EXT-X-MEDIA-SEQUENCE:107"))
    }

    @Test func liveEdgeOfAShortPlaylistIsItsStart() throws {
        #expect(LiveRecorder.liveEdge(try live(first: 0, count: 2)) == 0)
        #expect(LiveRecorder.liveEdge(try live(first: 0, count: 5, duration: 1)) == 0)
        #expect(LiveRecorder.liveEdge(try live(first: 0, count: 10, duration: 1)) == 4)
    }

    @Test func anEndedRenditionTakesNothingMore() throws {
        var state = LiveRendition(folder: "audio-en", kind: .audio)
        _ = try LiveRecorder.merge(
            &state, rendition: 1, playlist: try live(first: 0, count: 2, end: true), keys: [], record: RecordRequest())
        let again = try LiveRecorder.merge(
            &state, rendition: 1, playlist: try live(first: 0, count: 4, end: true), keys: [], record: RecordRequest())
        #expect(again.entries.isEmpty && again.lines.isEmpty)
    }
}

extension LiveRecorderTests {
    @Test func aRestartedPackagerIsADiscontinuityWithExplicitIVsNotAGap() throws {
        var state = LiveRendition(folder: "video", kind: .video)
        let key = ["#EXT-X-KEY:METHOD=AES-128,URI=\"k.key\""]
        _ = try LiveRecorder.merge(
            &state, rendition: 0, playlist: try live(first: 500_000, count: 2, before: [500_000: key]), keys: [],
            record: RecordRequest())
        let known = [PlannedKey(uri: "http://origin.test/live/k.key", method: "AES-128")]
        let back = try LiveRecorder.merge(
            &state, rendition: 0, playlist: try live(first: 0, count: 2, before: [0: key]), keys: known,
            record: RecordRequest())
        #expect(back.entries.count == 2 && back.missed == 0, "numbering went back: taken, no gap")
        #expect(back.lines.first == "#EXT-X-DISCONTINUITY")
        #expect(back.lines.contains("#EXT-X-KEY:METHOD=AES-128,URI=\"/keys/0\",IV=0x00000000000000000000000000000000"))
        #expect(back.lines.contains("#EXT-X-KEY:METHOD=AES-128,URI=\"/keys/0\",IV=0x00000000000000000000000000000001"))
        let ahead = try LiveRecorder.merge(
            &state, rendition: 0, playlist: try live(first: 90_000, count: 1, before: [90_000: key]), keys: known,
            record: RecordRequest())
        #expect(ahead.entries.count == 1 && ahead.missed == 0, "a jump far ahead writes no gap entries")
        #expect(ahead.lines.first == "#EXT-X-DISCONTINUITY")
    }

    @Test func hostileNumbersAreRefusedNotTrapped() throws {
        for text in [
            "#EXTM3U\n#EXT-X-TARGETDURATION:1e19\n#EXTINF:2,\na.ts\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:9223372036854775807\n#EXTINF:2,\na.ts\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:1e300,\na.ts\n",
        ] {
            #expect(throws: PlaylistError.self) { try MediaPlaylist(text: text, url: url, allowLive: true) }
        }
    }
}
