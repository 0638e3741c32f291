import Foundation
import StowageProtocol
import StowageTestSupport
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

    @Test func rangeEndsThatWouldOverflowAreRefused() {
        let text = """
            #EXTM3U
            #EXTINF:2,
            #EXT-X-BYTERANGE:1125899906842624@0
            a.mp4
            #EXTINF:2,
            #EXT-X-BYTERANGE:10
            a.mp4
            #EXT-X-ENDLIST
            """
        #expect { try MediaPlaylist(text: text, url: url) } throws: { ($0 as? PlaylistError)?.line == 7 }
    }

    @Test func gapSegmentsKeepTheirPlaceOffline() throws {
        let text =
            "#EXTM3U\n#EXTINF:2,\na.ts\n#EXT-X-GAP\n#EXTINF:2,\nb.ts\n#EXTINF:2,\nc.ts\n"
            + "#EXT-X-GAP\n#EXTINF:1.5,\nd.ts\n#EXT-X-ENDLIST\n"
        let p = try MediaPlaylist(text: text, url: url)
        let plan = try OfflinePlanner.plan(
            master: nil, choice: nil,
            inputs: [.init(kind: .video, playlist: p, rendition: nil)])
        #expect(plan.resources.map(\.localPath) == ["video/seg-000000.ts", "video/seg-000002.ts"])
        let offline = try MediaPlaylist(text: plan.renditions[0].playlist, url: "http://127.0.0.1:9/video/index.m3u8")
        #expect(offline.segments.map(\.isGap) == [false, true, false, true])
        #expect(offline.segments.map(\.duration) == [2, 2, 2, 1.5])
        #expect(!plan.renditions[0].playlist.contains("b.ts") && !plan.renditions[0].playlist.contains("d.ts"))
    }

    /// Mutations of a playlist with every kind of tag the planner rewrites. Each mutant either parses or throws
    /// a PlaylistError naming a line of the text; what parses has sane segments, and its offline playlist
    /// (the module's serialiser) parses back to the same timeline and is a fixed point of parse + plan.
    @Test func mutatedPlaylistsKeepTheirInvariants() {
        let seeds = [
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-MEDIA-SEQUENCE:3
            #EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"
            #EXT-X-KEY:METHOD=AES-128,URI="k",IV=0x00000000000000000000000000000001
            #EXTINF:4.0,
            #EXT-X-BYTERANGE:1000@720
            main.mp4
            #EXTINF:4.0,
            #EXT-X-BYTERANGE:1000
            main.mp4
            #EXT-X-ENDLIST
            """,
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T10:00:00.000Z
            #EXTINF:2,
            seg000.ts
            #EXT-X-GAP
            #EXTINF:2,
            seg001.ts?x=1
            #EXT-X-KEY:METHOD=NONE
            #EXTINF:1.5,
            http://other.test/seg002.ts
            #EXT-X-ENDLIST
            """,
        ]
        var generator = SeededGenerator(seed: 42)
        var parsed = 0, planned = 0, refused = 0
        for round in 0..<4_000 {
            var m = Array(seeds[round % seeds.count].utf8)
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
            let playlist: MediaPlaylist
            do {
                playlist = try MediaPlaylist(text: text, url: url)
            } catch {
                refused += 1
                PlaylistProperties.checkError(error, url: url, lineCount: PlaylistProperties.lineCount(text), text)
                continue
            }
            parsed += 1
            PlaylistProperties.checkSegments(playlist, text)
            let plan: ResolvedPlan
            do {
                plan = try OfflinePlanner.plan(
                    master: nil, choice: nil,
                    inputs: [.init(kind: .video, playlist: playlist, rendition: nil)])
            } catch {
                #expect(error.kind == .refusedURI, "\(error)\n\(text)")
                PlaylistProperties.checkError(error, url: url, lineCount: playlist.lines.count, text)
                continue
            }
            planned += 1
            PlaylistProperties.checkOfflineRoundTrip(playlist, plan, text)
        }
        // The mutations reach every branch: refusals, parses that cannot be planned, and full round trips.
        #expect(
            refused >= 500 && parsed >= 500 && planned >= 500 && parsed > planned,
            "\(refused) refused, \(parsed) parsed, \(planned) planned")
    }
}

/// Properties every parsed playlist, every refusal and every offline playlist must have.
enum PlaylistProperties {
    /// Lines as the parser counts them (a BOM dropped, `\n` separated).
    static func lineCount(_ text: String) -> Int {
        let body = text.hasPrefix("\u{FEFF}") ? Substring(text).dropFirst() : Substring(text)
        return body.split(separator: "\n", omittingEmptySubsequences: false).count
    }

    static func checkError(_ error: PlaylistError, url: String, lineCount: Int, _ text: String) {
        #expect(error.url == url && !error.message.isEmpty, "\(error)")
        if error.kind == .live {
            #expect(error.line == nil, "a live playlist is refused as a whole: \(error)")
        } else if let line = error.line {
            #expect((1...lineCount).contains(line), "line \(line) of \(lineCount): \(error)\n\(text)")
            #expect(error.description.contains("line \(line)"))
        } else {
            Issue.record("a \(error.kind) error without a line: \(error)\n\(text)")
        }
    }

    static func checkSegments(_ p: MediaPlaylist, _ text: String) {
        var previousLine = 0
        for (n, s) in p.segments.enumerated() {
            #expect(
                !s.uri.isEmpty && !s.uri.hasPrefix("#") && Substring(s.uri).trimmingCharacters(in: " \t") == s.uri,
                "'\(s.uri)'\n\(text)")
            #expect(s.duration.isFinite && s.duration >= 0, "\(s.duration)\n\(text)")
            #expect(s.mediaSequence == p.mediaSequence + n)
            #expect(s.line > previousLine && s.line <= p.lines.count && p.lines[s.line - 1].contains(s.uri))
            previousLine = s.line
            for range in [s.byteRange, s.map?.byteRange].compactMap({ $0 }) {
                #expect(
                    range.length >= 0 && range.offset >= 0 && range.offset <= Int64.max - range.length,
                    "\(range)\n\(text)")
            }
            if let key = s.key { #expect(key.isEncrypted && key.isDeliverable && key.uri != nil) }
            do {
                let absolute = try URIResolver.resolve(s.uri, against: p.url, line: s.line)
                #expect(["http", "https"].contains(URL(string: absolute)?.scheme?.lowercased()), "\(absolute)")
            } catch {
                #expect(error.kind == .refusedURI && error.line == s.line, "\(error)")
            }
        }
    }

    /// What a segment means for playback, apart from where its bytes come from.
    struct Timeline: Equatable {
        var duration: Double
        var mediaSequence: Int
        var isGap: Bool
        var keyMethod: String?
        var keyIV: String?
        var hasMap: Bool
    }

    static func timeline(_ p: MediaPlaylist) -> [Timeline] {
        p.segments.map {
            Timeline(
                duration: $0.duration, mediaSequence: $0.mediaSequence, isGap: $0.isGap, keyMethod: $0.key?.method,
                keyIV: $0.key?.iv, hasMap: $0.map != nil)
        }
    }

    static func checkOfflineRoundTrip(_ p: MediaPlaylist, _ plan: ResolvedPlan, _ text: String) {
        guard plan.renditions.count == 1 else {
            Issue.record("one input, \(plan.renditions.count) renditions")
            return
        }
        let rendition = plan.renditions[0]
        let base = "http://127.0.0.1:9/" + rendition.localPath
        for r in plan.resources {
            #expect(r.localPath.hasPrefix("video/") && !r.localPath.contains("..") && !r.localPath.contains("//"))
            #expect(["http", "https"].contains(URL(string: r.url)?.scheme?.lowercased()), "\(r.url)")
        }
        let offline: MediaPlaylist
        do {
            offline = try MediaPlaylist(text: rendition.playlist, url: base)
        } catch {
            let both = "--- source\n\(text)\n--- offline\n\(rendition.playlist)"
            Issue.record("the offline playlist does not parse: \(error)\n\(both)")
            return
        }
        #expect(timeline(offline) == timeline(p), "--- source\n\(text)\n--- offline\n\(rendition.playlist)")
        #expect(offline.targetDuration == p.targetDuration && offline.mediaSequence == p.mediaSequence)
        #expect(offline.hasEndList == p.hasEndList && offline.playlistType == p.playlistType)
        #expect(offline.programDateTime?.date == p.programDateTime?.date)
        #expect(offline.programDateTime?.at == p.programDateTime?.at)
        // Offline every file is whole and local: no byte ranges, no URI leaves the title.
        let local = Set(plan.resources.map { String($0.localPath.dropFirst("video/".count)) })
        for s in offline.segments {
            #expect(s.byteRange == nil && s.map?.byteRange == nil)
            if let map = s.map { #expect(local.contains(map.uri), "\(map.uri)") }
            if !s.isGap { #expect(local.contains(s.uri), "\(s.uri) is not a planned file: \(local)") }
            if let key = s.key { #expect(key.uri?.hasPrefix("/keys/") == true, "\(key)") }
        }
        // The offline playlist is a fixed point: planning it again writes it again, byte for byte.
        do {
            let again = try OfflinePlanner.plan(
                master: nil, choice: nil,
                inputs: [.init(kind: .video, playlist: offline, rendition: nil)])
            #expect(again.renditions.map(\.playlist) == [rendition.playlist], "--- source\n\(text)")
            #expect(again.resources.map(\.localPath) == plan.resources.map(\.localPath))
        } catch {
            Issue.record("the offline playlist cannot be planned again: \(error)\n\(rendition.playlist)")
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
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aud",\
            SUBTITLES="subs"
            low/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,AUDIO="aud"
            mid/index.m3u8
            """
        var generator = SeededGenerator(seed: 7)
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
