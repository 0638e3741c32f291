import StowageProtocol
import Testing
@testable import StowageHLS

@Suite("Media playlists")
struct MediaPlaylistTests {
    let url = "http://origin.test/a/b/index.m3u8"

    @Test func parsesSegmentsKeysMapsAndRanges() throws {
        let text = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:4
        #EXT-X-MEDIA-SEQUENCE:17
        #EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"
        #EXT-X-KEY:METHOD=AES-128,URI="https://keys.test/k1?t=abc"
        #EXTINF:4.0,
        #EXT-X-BYTERANGE:1000@720
        main.mp4
        #EXTINF:3.5,title
        #EXT-X-BYTERANGE:500
        main.mp4
        #EXT-X-DISCONTINUITY
        #EXT-X-PROGRAM-DATE-TIME:2020-01-01T00:00:00Z
        #EXT-X-SOMETHING-NEW:X=1
        #EXT-X-KEY:METHOD=NONE
        #EXTINF:2,
        ../c/last.mp4?sig=1
        #EXT-X-ENDLIST
        """
        let p = try MediaPlaylist(text: text, url: url)
        #expect(p.segments.count == 3)
        #expect(p.segments[0].mediaSequence == 17)
        #expect(p.segments[0].byteRange == ByteRange(length: 1000, offset: 720))
        #expect(p.segments[1].byteRange == ByteRange(length: 500, offset: 1720))
        #expect(p.segments[0].map?.byteRange == ByteRange(length: 720, offset: 0))
        #expect(p.segments[0].key?.method == "AES-128")
        #expect(p.segments[2].key == nil)
        #expect(p.segments[2].mediaSequence == 19)
        #expect(abs(p.totalDuration - 9.5) < 0.0001)
    }

    @Test func refusesLivePlaylists() {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n"
        #expect { try MediaPlaylist(text: text, url: url) } throws: { ($0 as? PlaylistError)?.kind == .live }
    }

    @Test func errorsNameTheLine() {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:abc,\na.ts\n#EXT-X-ENDLIST\n"
        do {
            _ = try MediaPlaylist(text: text, url: url)
            Issue.record("expected a parse error")
        } catch {
            #expect(error.line == 3)
            #expect(error.description.contains("line 3"))
            #expect(error.description.contains(url))
        }
    }

    @Test func requiresHeader() {
        #expect { try MediaPlaylist(text: "<html>nope</html>", url: url) } throws: { ($0 as? PlaylistError)?.line == 1 }
    }

    @Test func rangeWithoutOffsetNeedsAPredecessor() {
        let text = "#EXTM3U\n#EXTINF:2,\n#EXT-X-BYTERANGE:100\na.ts\n#EXT-X-ENDLIST\n"
        #expect { try MediaPlaylist(text: text, url: url) } throws: { ($0 as? PlaylistError)?.line == 4 }
    }

    @Test func mutatedPlaylistsNeverCrash() {
        let seed = """
        #EXTM3U
        #EXT-X-TARGETDURATION:4
        #EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"
        #EXT-X-KEY:METHOD=AES-128,URI="k",IV=0x00000000000000000000000000000001
        #EXTINF:4.0,
        #EXT-X-BYTERANGE:1000@720
        main.mp4
        #EXT-X-ENDLIST
        """
        var generator = SplitMix(seed: 42)
        let bytes = Array(seed.utf8)
        for _ in 0..<3_000 {
            var m = bytes
            for _ in 0..<Int(generator.next() % 8 + 1) {
                let i = Int(generator.next() % UInt64(m.count))
                switch generator.next() % 3 {
                case 0: m[i] = UInt8(truncatingIfNeeded: generator.next())
                case 1: m.remove(at: i)
                default: m.insert(Array("\",=@:#\n".utf8)[Int(generator.next() % 7)], at: i)
                }
                if m.isEmpty { m = [0x23] }
            }
            let text = String(decoding: m, as: UTF8.self)
            if let p = try? MediaPlaylist(text: text, url: url) {
                _ = try? OfflinePlanner.plan(master: nil, choice: nil, inputs: [.init(kind: .video, playlist: p, rendition: nil)])
            }
        }
    }
}

@Suite("Master playlist fuzz")
struct MasterFuzzTests {
    @Test func mutatedMastersNeverCrash() {
        let seed = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="a/en.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",URI="s/en.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aud",SUBTITLES="subs"
        low/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,AUDIO="aud"
        mid/index.m3u8
        """
        var generator = SplitMix(seed: 7)
        let bytes = Array(seed.utf8)
        var parsed = 0
        for _ in 0..<3_000 {
            var m = bytes
            for _ in 0..<Int(generator.next() % 6 + 1) {
                let i = Int(generator.next() % UInt64(m.count))
                switch generator.next() % 3 {
                case 0: m[i] = UInt8(truncatingIfNeeded: generator.next())
                case 1: m.remove(at: i)
                default: m.insert(Array("\",=x:#\n".utf8)[Int(generator.next() % 7)], at: i)
                }
                if m.isEmpty { m = [0x23] }
            }
            if let master = try? MasterPlaylist(text: String(decoding: m, as: UTF8.self), url: "http://o.test/m.m3u8") {
                parsed += 1
                _ = try? RenditionSelector.select(master, .init(bitrate: 1_000_000, audio: ["en"], subtitles: ["all"]))
            }
        }
        #expect(parsed > 0)
    }
}

/// A tiny deterministic generator (fixed seed, fixed count).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}
