import Crypto
import Foundation
import Testing
import _CryptoExtras

@testable import StowageOrigin

/// A VOD media playlist of 10 segments of 2 s: an init section, key k0 then k1 from segment 5 (or no key when
/// `clear`), and byte ranges of one file (`main.mp4`, 1000 bytes each, offsets implied after the first) when
/// `ranges`.
private func vod(clear: Bool = false, ranges: Bool = false, sequence: Int? = nil) -> String {
    var lines = [
        "#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD",
        "#EXT-X-INDEPENDENT-SEGMENTS",
    ]
    if let sequence { lines.append("#EXT-X-MEDIA-SEQUENCE:\(sequence)") }
    lines.append("#EXT-X-MAP:URI=\"init.mp4\"")
    for i in 0..<10 {
        if !clear && i == 0 { lines.append("#EXT-X-KEY:METHOD=AES-128,URI=\"k0.key\"") }
        if !clear && i == 5 { lines.append("#EXT-X-KEY:METHOD=AES-128,URI=\"k1.key\"") }
        lines.append("#EXTINF:2.0,")
        if ranges {
            lines.append(i == 0 ? "#EXT-X-BYTERANGE:1000@0" : "#EXT-X-BYTERANGE:1000")
            lines.append("main.mp4")
        } else {
            lines.append("seg\(i).m4s")
        }
    }
    lines.append("#EXT-X-ENDLIST")
    return lines.joined(separator: "\n") + "\n"
}

/// The URI lines of a rendering.
private func uris(_ text: String) -> [String] {
    text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
}

/// The lines of a rendering.
private func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

@Suite("Live playlists from VOD")
struct LivePlaylistTests {
    let playlist = try! LivePlaylist(parsing: vod())

    @Test func showsStartSegmentsAtTimeZero() {
        #expect(uris(playlist.render(at: 0, LiveOptions())) == ["seg0.m4s"])
        let three = playlist.render(at: 0, LiveOptions(start: 3))
        #expect(uris(three) == ["seg0.m4s", "seg1.m4s", "seg2.m4s"])
        #expect(!three.contains("#EXT-X-ENDLIST"))
    }

    @Test func segmentsAppearWhenTheirEndHasPassedAtTheSpeed() {
        #expect(uris(playlist.render(at: 5, LiveOptions())) == ["seg0.m4s", "seg1.m4s"])
        #expect(playlist.available(at: 3.99, LiveOptions()) == 1)
        #expect(playlist.available(at: 4, LiveOptions()) == 2)
        #expect(playlist.available(at: 5, LiveOptions(speed: 2)) == 5)
        #expect(playlist.available(at: 5, LiveOptions(speed: 0.5)) == 1)
    }

    @Test func eventPlaylistGrowsAndEnds() {
        let options = LiveOptions()
        let early = playlist.render(at: 6, options), late = playlist.render(at: 14, options)
        for text in [early, late] {
            let all = lines(text)
            #expect(all.first == "#EXTM3U")
            #expect(all.contains("#EXT-X-PLAYLIST-TYPE:EVENT"))
            #expect(!all.contains("#EXT-X-PLAYLIST-TYPE:VOD"))
            #expect(all.contains("#EXT-X-MEDIA-SEQUENCE:0"))
            #expect(all.contains("#EXT-X-TARGETDURATION:2") && all.contains("#EXT-X-INDEPENDENT-SEGMENTS"))
            #expect(!all.contains("#EXT-X-ENDLIST"))
        }
        #expect(uris(early).count == 3)
        #expect(uris(late) == (0..<7).map { "seg\($0).m4s" })
        let done = lines(playlist.render(at: 20, options))
        #expect(uris(done.joined(separator: "\n")).count == 10)
        #expect(done.last == "#EXT-X-ENDLIST")
        #expect(done.filter { $0 == "#EXT-X-ENDLIST" }.count == 1)
    }

    @Test func slidingWindowReEmitsTheKeyAndMapInForce() {
        let options = LiveOptions(window: 3)
        let end = lines(playlist.render(at: 100, options))
        #expect(uris(end.joined(separator: "\n")) == ["seg7.m4s", "seg8.m4s", "seg9.m4s"])
        #expect(end.contains("#EXT-X-MEDIA-SEQUENCE:7"))
        #expect(!end.contains { $0.hasPrefix("#EXT-X-PLAYLIST-TYPE") })
        #expect(end.last == "#EXT-X-ENDLIST")
        let firstSegment = end.firstIndex(of: "#EXTINF:2.0,")!
        let map = end.firstIndex(of: "#EXT-X-MAP:URI=\"init.mp4\"")
        let key = end.firstIndex(of: "#EXT-X-KEY:METHOD=AES-128,URI=\"k1.key\"")
        #expect(map != nil && map! < firstSegment)
        #expect(key != nil && key! < firstSegment)
        #expect(!end.contains { $0.contains("k0.key") })

        // Segments 3, 4, 5: k0 is in force at 3 and comes back before it; k1 stays with segment 5, once.
        let middle = lines(playlist.render(at: 12, options))
        #expect(uris(middle.joined(separator: "\n")) == ["seg3.m4s", "seg4.m4s", "seg5.m4s"])
        #expect(middle.contains("#EXT-X-MEDIA-SEQUENCE:3"))
        let k0 = middle.firstIndex(of: "#EXT-X-KEY:METHOD=AES-128,URI=\"k0.key\"")
        let k1 = middle.firstIndex(of: "#EXT-X-KEY:METHOD=AES-128,URI=\"k1.key\"")
        #expect(k0 != nil && k0! < middle.firstIndex(of: "seg3.m4s")!)
        #expect(k1 != nil && k1! > middle.firstIndex(of: "seg4.m4s")! && k1! < middle.firstIndex(of: "seg5.m4s")!)
        #expect(middle.filter { $0.hasPrefix("#EXT-X-KEY") }.count == 2)
        #expect(middle.filter { $0.hasPrefix("#EXT-X-MAP") }.count == 1)
        #expect(!middle.contains("#EXT-X-ENDLIST"))
    }

    @Test func mediaSequenceStartsFromTheVodOne() throws {
        let shifted = try LivePlaylist(parsing: vod(sequence: 100))
        let text = lines(shifted.render(at: 100, LiveOptions(window: 3)))
        #expect(text.contains("#EXT-X-MEDIA-SEQUENCE:107"))
        #expect(text.filter { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE") }.count == 1)
    }

    @Test func stalledStreamNeverEnds() {
        let options = LiveOptions(stallAfter: 4)
        for time in [8.0, 20, 1000, 1_000_000] {
            let text = playlist.render(at: time, options)
            #expect(uris(text) == ["seg0.m4s", "seg1.m4s", "seg2.m4s", "seg3.m4s"])
            #expect(!text.contains("#EXT-X-ENDLIST"))
        }
        #expect(playlist.render(at: 20, LiveOptions(stallAfter: 10)).contains("#EXT-X-ENDLIST"))
    }

    @Test func insertedDiscontinuityIsCountedOnceItLeavesTheWindow() {
        let options = LiveOptions(window: 3, discontinuityAt: [3])
        // Segments 1, 2, 3 and then 3, 4, 5: the discontinuity is in the window, right before segment 3.
        for time in [8.0, 12] {
            let text = lines(playlist.render(at: time, options))
            let tag = text.firstIndex(of: "#EXT-X-DISCONTINUITY")
            #expect(tag != nil && text[tag! + 1] == "#EXTINF:2.0," && text[tag! + 2] == "seg3.m4s")
            #expect(!text.contains { $0.hasPrefix("#EXT-X-DISCONTINUITY-SEQUENCE") })
        }
        // Segments 4, 5, 6: it left, so the discontinuity sequence counts it.
        let after = lines(playlist.render(at: 14, options))
        #expect(after.contains("#EXT-X-DISCONTINUITY-SEQUENCE:1"))
        #expect(!after.contains("#EXT-X-DISCONTINUITY"))
        #expect(uris(after.joined(separator: "\n")) == ["seg4.m4s", "seg5.m4s", "seg6.m4s"])
        // Without the option nothing is inserted.
        #expect(!playlist.render(at: 100, LiveOptions()).contains("#EXT-X-DISCONTINUITY"))
    }

    @Test func byteRangesGetExplicitOffsets() throws {
        let ranged = try LivePlaylist(parsing: vod(ranges: true))
        let text = lines(ranged.render(at: 100, LiveOptions(window: 2)))
        #expect(text.contains("#EXT-X-BYTERANGE:1000@8000"))
        #expect(text.contains("#EXT-X-BYTERANGE:1000@9000"))
        #expect(text.filter { $0.hasPrefix("#EXT-X-BYTERANGE") }.count == 2)
        #expect(ranged.segments[4].byteRange == LivePlaylist.ByteRange(length: 1000, offset: 4000))
        #expect(ranged.segmentPaths(playlistPath: "/v/index.m3u8") == ["v/main.mp4": Array(0..<10)])
    }

    @Test func keyRotationNamesKeysWhereTheyChange() throws {
        let clear = try LivePlaylist(parsing: vod(clear: true))
        let options = LiveOptions(keyEvery: 4)
        try clear.check(options)
        let text = lines(clear.render(at: 100, options))
        let keys = text.filter { $0.hasPrefix("#EXT-X-KEY") }
        #expect(keys == (0..<3).map { "#EXT-X-KEY:METHOD=AES-128,URI=\"/live-keys/\($0)\"" })
        for (k, segment) in [(0, 0), (1, 4), (2, 8)] {
            let key = text.firstIndex(of: keys[k])!
            #expect(text[key + 1] == "#EXTINF:2.0," && text[key + 2] == "seg\(segment).m4s")
        }
        // The init section comes before any key (else it would count as encrypted).
        #expect(text.firstIndex { $0.hasPrefix("#EXT-X-MAP") }! < text.firstIndex(of: keys[0])!)

        // A window that starts inside key period 0 names key 0 first.
        let window = lines(clear.render(at: 12, LiveOptions(window: 3, keyEvery: 4)))
        #expect(
            window.filter { $0.hasPrefix("#EXT-X-KEY") || !$0.hasPrefix("#") } == [
                "#EXT-X-KEY:METHOD=AES-128,URI=\"/live-keys/0\"", "seg3.m4s",
                "#EXT-X-KEY:METHOD=AES-128,URI=\"/live-keys/1\"", "seg4.m4s", "seg5.m4s",
            ])
    }

    @Test func keyRotationRefusesEncryptedOrRangedSources() throws {
        let options = LiveOptions(keyEvery: 4)
        #expect(throws: LivePlaylist.Failure.self) { try playlist.check(options) }
        #expect(throws: LivePlaylist.Failure.self) {
            try LivePlaylist(parsing: vod(clear: true, ranges: true)).check(options)
        }
        #expect(throws: Never.self) { try playlist.check(LiveOptions()) }
    }

    @Test func keyRotationEncryptsWithTheSequenceNumberAsIV() throws {
        let options = LiveOptions(keyEvery: 4)
        let stream = LiveStream(root: URL(fileURLWithPath: "/nonexistent"), options: options)
        let text = try stream.liveText(path: "/v/index.m3u8", data: Data(vod(clear: true, sequence: 100).utf8))
        #expect(text?.contains("#EXT-X-MEDIA-SEQUENCE:100") == true)
        let plain = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let sealed = try #require(try stream.segmentBody(path: "/v/seg5.m4s", data: plain))
        #expect(sealed != plain && sealed.count == 1008)
        let key = SymmetricKey(data: try #require(stream.key(1)))
        #expect(stream.key(0) != stream.key(1))
        let iv = try AES._CBC.IV(ivBytes: LivePlaylist.iv(sequence: 105))
        #expect(try AES._CBC.decrypt(sealed, using: key, iv: iv) == plain)
        #expect(LivePlaylist.iv(sequence: 105) == [UInt8](repeating: 0, count: 15) + [105])
        // Another segment has another IV; a path that is no segment is served as it is.
        #expect(try stream.segmentBody(path: "/v/seg4.m4s", data: plain) != sealed)
        #expect(try stream.segmentBody(path: "/v/other.m4s", data: plain) == nil)
        // Without rotation there is no key and no encryption.
        let plainStream = LiveStream(root: URL(fileURLWithPath: "/nonexistent"), options: LiveOptions())
        #expect(plainStream.key(0) == nil)
    }

    @Test func retainRefusesSegmentsLongGone() throws {
        let options = LiveOptions(window: 3, retain: 1)
        // At the end the window is 7, 8, 9: 6 left one segment ago and is kept, 5 is gone.
        #expect(playlist.isServable(segment: 6, at: 100, options))
        #expect(!playlist.isServable(segment: 5, at: 100, options))
        #expect(playlist.isServable(segment: 5, at: 0, options))
        #expect(playlist.isServable(segment: 0, at: 100, LiveOptions(window: 3)))

        let stream = LiveStream(
            root: URL(fileURLWithPath: "/nonexistent"), options: options, started: .now - .seconds(100))
        _ = try stream.liveText(path: "/v/index.m3u8", data: Data(vod().utf8))
        #expect(stream.segmentRefusal(path: "/v/seg5.m4s") == "segment left the live window")
        #expect(stream.answer(path: "/v/seg5.m4s", data: Data()) == .gone("segment left the live window"))
        #expect(stream.segmentRefusal(path: "/v/./seg6.m4s?x=1") == nil)
        #expect(stream.segmentRefusal(path: "/v/unknown.m4s") == nil)
    }

    @Test func masterPlaylistsPassThrough() throws {
        let stream = LiveStream(root: URL(fileURLWithPath: "/nonexistent"), options: LiveOptions())
        let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\nv/index.m3u8\n"
        #expect(try stream.liveText(path: "/master.m3u8", data: Data(master.utf8)) == nil)
        #expect(stream.answer(path: "/master.m3u8", data: Data(master.utf8)) == .asIs)
    }

    @Test func resolvesSegmentPathsAgainstThePlaylist() {
        #expect(LivePlaylist.rootPath(of: "../a/b%20c.ts?x=1", relativeTo: "/x/y/index.m3u8") == "x/a/b c.ts")
        #expect(LivePlaylist.rootPath(of: "/abs/s.ts", relativeTo: "/x/index.m3u8") == "abs/s.ts")
        #expect(LivePlaylist.rootPath(of: "http://h:8080/p/q.ts", relativeTo: "/x/index.m3u8") == "p/q.ts")
        #expect(LivePlaylist.rootPath(of: "data:abc", relativeTo: "/x/index.m3u8") == nil)
    }

    @Test func optionsAreValidated() {
        #expect(LiveOptions().problem == nil)
        #expect(LiveOptions(window: -1).problem != nil)
        #expect(LiveOptions(speed: 0).problem != nil)
        #expect(LiveOptions(start: 3, stallAfter: 2).problem != nil)
        #expect(LiveOptions(keyEvery: 0).problem != nil)
        #expect(LiveOptions(retain: 2).problem?.contains("--live-window") == true)
        #expect(LiveOptions(window: 3, retain: 2).problem == nil)
    }
}
