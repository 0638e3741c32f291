import Foundation
import StowageTestSupport
import Testing

/// `submit --iframes` on a Shaka Packager title whose I-frame playlist (`iframe_playlist_name=`) names byte ranges
/// of the video's own segments: the offline master keeps it, nothing more is fetched, and with the origin stopped
/// each range served offline (by `stowctl play` and the gateway) is the origin's range byte for byte.
@Suite("HLS I-frame playlists kept", .serialized)
struct IFrameTests {
    @Test func iFramePlaylistInsideKeptSegmentsServesTheOriginsRanges() throws {
        let h = try Harness(name: "iframes")
        let input = try ShakaPackager.input(h.root.appendingPathComponent("input"))
        let dir = h.media.appendingPathComponent("title")
        try ShakaPackager.hls(
            input: input, into: dir, scheme: nil, ext: "m4s", videoExtra: ",iframe_playlist_name=vi.m3u8")
        let source = try String(contentsOf: dir.appendingPathComponent("vi.m3u8"), encoding: .utf8)
        #expect(source.contains("#EXT-X-I-FRAMES-ONLY") && source.contains("#EXT-X-BYTERANGE"), "\(source)")
        let packaged = try OfflineCopy.framemd5(dir.appendingPathComponent("master.m3u8").path)
        try h.startOrigin()
        try h.startPipeline()

        let plain = try h.waitForFinal(try h.submit("title/master.m3u8"))
        #expect(plain.state == .completed, "\(String(describing: plain.error))")
        let plainMaster = try String(contentsOfFile: try #require(plain.localPlaylist), encoding: .utf8)
        #expect(!plainMaster.contains("I-FRAME"), "dropped by default: \(plainMaster)")
        #expect(h.originGets(path: "/title/vi.m3u8") == 0)

        // The same title again (a copy, another URL) with --iframes.
        try FileManager.default.copyItem(at: dir, to: h.media.appendingPathComponent("again"))
        let token = try h.submit("again/master.m3u8", ["--iframes"])
        let status = try h.waitForFinal(token)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        #expect(h.originGets(path: "/again/vi.m3u8") == 1)
        #expect(
            h.originRequests(containing: "/again/v/") == h.originRequests(containing: "/title/v/"),
            "the I-frame playlist adds no fetch: the copy's video files are fetched as often as without it")

        #expect(h.terminate("origin") == 0)
        let entry = try h.startPlay(token)
        let base = entry.replacingOccurrences(of: "/master.m3u8", with: "")
        let master = try ShakaPackagerHLSTests.curl(entry, in: h)
        let line = try #require(master.split(separator: "\n").first { $0.hasPrefix("#EXT-X-I-FRAME-STREAM-INF:") })
        let uri = try #require(ShakaPackagerHLSTests.attribute("URI", in: String(line)))
        #expect(uri == "iframes/index.m3u8", "\(master)")
        let local = try ShakaPackagerHLSTests.curl("\(base)/\(uri)", in: h)
        let originEntries = try Self.entries(source)
        let localEntries = try Self.entries(local)
        #expect(localEntries.count == originEntries.count && localEntries.count == 4, "\(local)")
        let gateway = try h.startGateway(address: "127.0.0.1")
        let auth = ["Authorization: Bearer \(try h.addDevice("tablet"))"]
        for (l, o) in zip(localEntries, originEntries) {
            let expected = try Data(contentsOf: dir.appendingPathComponent(o.uri))
                .subdata(in: Int(o.offset)..<Int(o.offset + o.length))
            let path = URL(string: "\(base)/iframes/\(l.uri)")!.standardized.path
            let range = "Range: bytes=\(l.offset)-\(l.offset + l.length - 1)"
            let served = try ShakaPackagerHLSTests.curlData("\(Self.origin(entry))\(path)", headers: [range], in: h)
            #expect(served == expected, "\(l.uri) \(l.offset)@\(l.length) offline equals \(o.uri) at the origin")
            let titlePath = path.split(separator: "/").drop { $0 != "video" }.joined(separator: "/")
            let remote = try ShakaPackagerHLSTests.curlData(
                "\(gateway)/titles/\(token)/\(titlePath)", headers: auth + [range], in: h)
            #expect(remote == expected, "the gateway serves the same range of \(titlePath)")
        }
        let remoteMaster = try ShakaPackagerHLSTests.curl(
            "\(gateway)/titles/\(token)/master.m3u8", headers: auth, in: h)
        #expect(remoteMaster.contains("#EXT-X-I-FRAME-STREAM-INF:"), "\(remoteMaster)")
        try Self.scrubsBySignedURL(h, token: token, origin: dir, originEntries: originEntries, packaged: packaged)
    }

    /// A device that cannot send headers plays the title from a signed master URL through the gateway: the main
    /// video decodes like the packager's, and following the master's `EXT-X-I-FRAME-STREAM-INF` URI, then the
    /// I-frame playlist's map and entries (each URI carrying the signature), every range is the origin's.
    static func scrubsBySignedURL(
        _ h: Harness, token: String, origin dir: URL, originEntries: [Entry], packaged: String
    ) throws {
        let (code, out) = try h.stowctl([
            "devices", "sign", "tablet", "/titles/\(token)/master.m3u8", "--expires", "10m",
        ])
        #expect(code == 0, "\(out)")
        let master = try #require(URL(string: out.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(
            DASHMedia.hashes(try OfflineCopy.framemd5(master.absoluteString)) == DASHMedia.hashes(packaged),
            "the signed master plays the main video")
        let text = try ShakaPackagerHLSTests.curl(master.absoluteString, in: h)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("#EXT-X-I-FRAME-STREAM-INF:") })
        let uri = try #require(ShakaPackagerHLSTests.attribute("URI", in: String(line)))
        #expect(uri.contains("sig="), "the I-frame playlist's URI carries the signature: \(uri)")
        let playlistURL = try #require(URL(string: uri, relativeTo: master)?.absoluteURL)
        let playlist = try ShakaPackagerHLSTests.curl(playlistURL.absoluteString, in: h)
        let map = try #require(
            ShakaPackagerHLSTests.keyURI(playlist.replacingOccurrences(of: "EXT-X-MAP", with: "EXT-X-KEY")))
        let initURL = try #require(URL(string: map, relativeTo: playlistURL)?.absoluteString)
        #expect(
            try ShakaPackagerHLSTests.curlData(initURL, in: h)
                == Data(contentsOf: dir.appendingPathComponent("v/init.mp4")))
        let entries = try Self.entries(playlist)
        #expect(entries.count == originEntries.count, "\(playlist)")
        for (l, o) in zip(entries, originEntries) {
            let url = try #require(URL(string: l.uri, relativeTo: playlistURL)?.absoluteString)
            let served = try ShakaPackagerHLSTests.curlData(
                url, headers: ["Range: bytes=\(l.offset)-\(l.offset + l.length - 1)"], in: h)
            let expected = try Data(contentsOf: dir.appendingPathComponent(o.uri))
                .subdata(in: Int(o.offset)..<Int(o.offset + o.length))
            #expect(served == expected, "\(l.uri) through the signed URL equals \(o.uri) at the origin")
        }
    }

    /// An I-frame playlist whose ranges are in files the title does not keep (here the same bytes at other URLs):
    /// each range is fetched with the title as a file of its own, served offline equal to the origin's range.
    @Test func iFrameRangesOutsideKeptSegmentsAreFetched() throws {
        let h = try Harness(name: "iframes-apart")
        let input = try ShakaPackager.input(h.root.appendingPathComponent("input"))
        let dir = h.media.appendingPathComponent("title")
        try ShakaPackager.hls(
            input: input, into: dir, scheme: nil, ext: "m4s", videoExtra: ",iframe_playlist_name=vi.m3u8")
        try FileManager.default.copyItem(at: dir.appendingPathComponent("v"), to: dir.appendingPathComponent("keys"))
        let playlist = dir.appendingPathComponent("vi.m3u8")
        let source = try String(contentsOf: playlist, encoding: .utf8).replacingOccurrences(of: "\nv/", with: "\nkeys/")
        try source.write(to: playlist, atomically: true, encoding: .utf8)
        let originEntries = try Self.entries(source)
        #expect(originEntries.count == 4 && originEntries.allSatisfy { $0.uri.hasPrefix("keys/") }, "\(source)")
        try h.startOrigin()
        try h.startPipeline()

        let token = try h.submit("title/master.m3u8", ["--iframes"])
        let status = try h.waitForFinal(token)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        #expect(h.originRequests(containing: "/title/keys/") == 4, "each range fetched once")
        #expect(h.terminate("origin") == 0)
        let entry = try h.startPlay(token)
        let base = entry.replacingOccurrences(of: "/master.m3u8", with: "")
        let local = try ShakaPackagerHLSTests.curl("\(base)/iframes/index.m3u8", in: h)
        let files = local.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
        #expect(files.count == 4 && !local.contains("BYTERANGE"), "\(local)")
        for (file, o) in zip(files, originEntries) {
            let expected = try Data(contentsOf: dir.appendingPathComponent(o.uri))
                .subdata(in: Int(o.offset)..<Int(o.offset + o.length))
            #expect(try ShakaPackagerHLSTests.curlData("\(base)/iframes/\(file)", in: h) == expected, "\(file)")
        }
    }

    struct Entry {
        var uri: String
        var offset: Int64
        var length: Int64
    }

    /// The (URI, range) of each entry of an I-frame playlist; every entry must have a range.
    static func entries(_ playlist: String) throws -> [Entry] {
        var out: [Entry] = []
        var range: (Int64, Int64)?
        for line in playlist.split(separator: "\n") {
            if line.hasPrefix("#EXT-X-BYTERANGE:") {
                let parts = line.dropFirst("#EXT-X-BYTERANGE:".count).split(separator: "@")
                range = (Int64(parts[1])!, Int64(parts[0])!)
            } else if !line.hasPrefix("#") {
                let (offset, length) = try #require(range, "\(line) has no byte range")
                out.append(Entry(uri: String(line), offset: offset, length: length))
                range = nil
            }
        }
        return out
    }

    static func origin(_ url: String) -> String { ShakaPackagerHLSTests.origin(of: url) }
}
