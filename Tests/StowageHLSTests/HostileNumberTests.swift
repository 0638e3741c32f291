import StowageProtocol
import Testing

@testable import StowageHLS

/// Numbers no stream has, in a master playlist: refused where they are read, naming the attribute, and never a
/// trap in the estimate made from them.
@Suite("Hostile numbers in playlists")
struct HostileNumberTests {
    let url = "http://origin.test/title/master.m3u8"

    func master(_ attributes: String) -> String {
        "#EXTM3U\n#EXT-X-STREAM-INF:\(attributes)\nv/index.m3u8\n"
    }

    @Test func aBitRateNoStreamHasIsRefusedNamingIt() throws {
        _ = try MasterPlaylist(text: master("BANDWIDTH=800000,RESOLUTION=640x360"), url: url)
        for attributes in [
            "BANDWIDTH=6148914690666666667,RESOLUTION=640x360", "BANDWIDTH=9000000000000000000",
            "BANDWIDTH=800000,AVERAGE-BANDWIDTH=9223372036854775807", "BANDWIDTH=-5",
        ] {
            do {
                _ = try MasterPlaylist(text: master(attributes), url: url)
                Issue.record("\(attributes) was accepted")
            } catch {
                #expect(error.kind == .malformed && error.line == 2, "\(attributes)")
                #expect(error.message.contains("BANDWIDTH '"), "\(error.message)")
                #expect(error.message.contains("out of range"), "\(error.message)")
            }
        }
        let iFrames = "#EXTM3U\n#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=9000000000000000000,URI=\"i.m3u8\"\n"
        #expect(throws: PlaylistError.self) { try MasterPlaylist(text: iFrames + master("BANDWIDTH=1"), url: url) }
    }

    @Test func aResolutionNoScreenHasIsNoResolution() throws {
        let playlist = try MasterPlaylist(text: master("BANDWIDTH=800000,RESOLUTION=99999999999x360"), url: url)
        #expect(playlist.variants[0].resolution == nil)
    }

    @Test func theEstimateOfTheHighestRateOverTheLongestPlaylistHolds() throws {
        let chosen = try MasterPlaylist(
            text: master("BANDWIDTH=\(OutsideNumbers.maxBitsPerSecond),RESOLUTION=640x360"), url: url)
        let segments = String(repeating: "#EXTINF:604800,\ns.ts\n", count: 2_000)
        let media = try MediaPlaylist(
            text: "#EXTM3U\n#EXT-X-TARGETDURATION:604800\n\(segments)#EXT-X-ENDLIST\n",
            url: "http://origin.test/title/v/index.m3u8")
        let choice = try RenditionSelector.select(chosen, Selection())
        let plan = try OfflinePlanner.plan(
            master: chosen, choice: choice, inputs: [.init(kind: .video, playlist: media, rendition: nil)])
        #expect(plan.bytesEstimate == OutsideNumbers.maxBytes)
    }
}

/// Byte ranges no file has: refused where read, so no request for them is ever built.
@Suite("Hostile byte ranges")
struct HostileByteRangeTests {
    func media(_ range: String) throws -> MediaPlaylist {
        try MediaPlaylist(
            text: "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n#EXT-X-BYTERANGE:\(range)\na.ts\n#EXT-X-ENDLIST\n",
            url: "http://origin.test/v/index.m3u8")
    }

    @Test func aRangeOfNoBytesOrPastAnyDiskIsRefused() throws {
        #expect(try media("1000@0").segments[0].byteRange?.length == 1_000)
        for range in ["0@0", "0@9223372036854775807", "2@9223372036854775807", "1125899906842625@0", "-1@0"] {
            #expect(throws: PlaylistError.self, "\(range)") { try media(range) }
        }
    }
}

/// Found by fuzzing: a segment whose `EXTINF` title names a file kept its duration but lost its tag offline.
@Suite("Offline EXTINF titles")
struct OfflineTitleTests {
    @Test func aTitleThatNamesAFileIsDroppedAndTheDurationKept() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.000,URI=\"http://elsewhere/x\"\na.ts\n#EXT-X-ENDLIST\n"
        let media = try MediaPlaylist(text: text, url: "http://origin.test/v/index.m3u8")
        let plan = try OfflinePlanner.plan(
            master: nil, choice: nil, inputs: [.init(kind: .video, playlist: media, rendition: nil)])
        let offline = plan.renditions[0].playlist
        #expect(offline.contains("#EXTINF:2.000,\n") && !offline.contains("elsewhere"), "\(offline)")
        #expect(try MediaPlaylist(text: offline, url: "http://127.0.0.1:9/video/index.m3u8").segments.count == 1)
    }
}
