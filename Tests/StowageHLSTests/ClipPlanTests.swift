import Foundation
import StowageProtocol
import Testing

@testable import StowageHLS

/// `submit --range`: each rendition keeps the segments that overlap the range by its own durations, and its
/// offline playlist lists only those, with the map, keys and media sequence (so the IV of a key without one) right.
@Suite("HLS clips")
struct ClipPlanTests {
    let url = "http://o.test/v/index.m3u8"

    /// `count` segments of `duration` seconds, numbered from `sequence`, under an AES-128 key without IV.
    func playlist(count: Int, duration: Double, sequence: Int = 5, name: String = "v") throws -> MediaPlaylist {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:\(Int(duration.rounded(.up)))\n#EXT-X-MEDIA-SEQUENCE:\(sequence)\n"
        text += "#EXT-X-MAP:URI=\"\(name)-init.mp4\"\n#EXT-X-KEY:METHOD=AES-128,URI=\"k.key\"\n"
        for n in 0..<count { text += "#EXTINF:\(duration),\n\(name)-\(n).m4s\n" }
        return try MediaPlaylist(text: text + "#EXT-X-ENDLIST\n", url: url)
    }

    func plan(_ inputs: [MediaPlaylist], _ range: ClipRange) throws -> ResolvedPlan {
        try OfflinePlanner.plan(
            master: nil, choice: nil,
            inputs: inputs.enumerated().map { i, p in .init(kind: i == 0 ? .video : .audio, playlist: p, rendition: nil)
            },
            range: range)
    }

    @Test func aRangeKeepsTheOverlappingSegmentsOfEveryRenditionByItsOwnDurations() throws {
        let video = try playlist(count: 20, duration: 2)
        let audio = try playlist(count: 14, duration: 3, sequence: 0, name: "a")
        let plan = try plan([video, audio], ClipRange(from: 10, to: 20))
        let videoFiles = plan.resources.filter { $0.rendition == 0 && $0.kind == .segment }.map(\.url)
        #expect(videoFiles == (5...9).map { "http://o.test/v/v-\($0).m4s" })
        // Audio segments of 3 s: 9–12, 12–15, 15–18, 18–21 overlap 10–20.
        let audioFiles = plan.resources.filter { $0.rendition == 1 && $0.kind == .segment }.map(\.url)
        #expect(audioFiles == (3...6).map { "http://o.test/v/a-\($0).m4s" })
        #expect(plan.clip == ClipRange(from: 10, to: 20))
        #expect(plan.resources.filter { $0.kind == .initSection }.count == 2)

        let text = plan.renditions[0].playlist
        #expect(text.contains("#EXT-X-MEDIA-SEQUENCE:10\n"), "the first kept segment keeps its number: \(text)")
        #expect(text.contains("#EXT-X-MAP:URI=") && text.contains("#EXT-X-KEY:METHOD=AES-128,URI=\"/keys/0\""))
        #expect(text.components(separatedBy: "#EXTINF").count - 1 == 5)
        #expect(OfflineLines.uris(text) == (5...9).map { "seg-\(padded6($0)).m4s" })
        #expect(text.hasSuffix("#EXT-X-ENDLIST\n"))
        #expect(plan.renditions[1].playlist.contains("#EXT-X-MEDIA-SEQUENCE:3\n"))
        // The IV of a segment without one is its ORIGINAL media sequence number (5 + index).
        let ivs = plan.resources.filter { $0.rendition == 0 && $0.kind == .segment }.compactMap(\.cipher?.iv)
        #expect(ivs == (10...14).map { String(repeating: "0", count: 31) + String($0, radix: 16) })
        // The estimate is the clip's, not the title's.
        let whole = try OfflinePlanner.plan(
            master: nil, choice: nil, inputs: [.init(kind: .video, playlist: video, rendition: nil)])
        #expect(plan.resources.count < whole.resources.count)
    }

    @Test func aRangeInsideOneSegmentKeepsThatSegment() throws {
        let plan = try plan([try playlist(count: 20, duration: 2)], ClipRange(from: 10.5, to: 11))
        #expect(plan.resources.filter { $0.kind == .segment }.map(\.url) == ["http://o.test/v/v-5.m4s"])
        #expect(plan.clip == ClipRange(from: 10, to: 12))
        #expect(plan.renditions[0].playlist.contains("#EXT-X-MEDIA-SEQUENCE:10\n"))
    }

    @Test func aRangeFromTheStartNeedsNoNewSequenceTag() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n#EXTINF:2,\nb.ts\n#EXT-X-ENDLIST\n"
        let first = try plan([try MediaPlaylist(text: text, url: url)], ClipRange(from: 0, to: 1))
        #expect(
            first.renditions[0].playlist
                == "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg-000000.ts\n#EXT-X-ENDLIST\n")
        let later = try plan([try MediaPlaylist(text: text, url: url)], ClipRange(from: 3, to: 9))
        #expect(later.renditions[0].playlist.hasPrefix("#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:1\n"))
        #expect(OfflineLines.uris(later.renditions[0].playlist) == ["seg-000001.ts"])
    }

    @Test func aDroppedDiscontinuityMovesTheDiscontinuitySequence() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXTINF:2,
            a.ts
            #EXT-X-DISCONTINUITY
            #EXTINF:2,
            b.ts
            #EXTINF:2,
            c.ts
            #EXT-X-ENDLIST

            """
        let plan = try plan([try MediaPlaylist(text: text, url: url)], ClipRange(from: 2, to: 6))
        let out = plan.renditions[0].playlist
        #expect(out.contains("#EXT-X-DISCONTINUITY-SEQUENCE:1\n") && !out.contains("#EXT-X-DISCONTINUITY\n"))
        #expect(OfflineLines.uris(out) == ["seg-000001.ts", "seg-000002.ts"])
    }

    @Test func aRangePastTheEndIsRefusedNamingTheDuration() throws {
        #expect {
            try plan([try playlist(count: 20, duration: 2)], ClipRange(from: 45, to: 50))
        } throws: { error in
            let e = error as? PlaylistError
            return e?.kind == .nothingSelectable && e?.message.contains("40 s long") == true
        }
    }
}

/// The URI lines of an offline playlist.
enum OfflineLines {
    static func uris(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
    }
}
