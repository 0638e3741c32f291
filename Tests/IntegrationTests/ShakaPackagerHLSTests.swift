import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// HLS titles made by Shaka Packager (v3.8.0) with a raw key: fMP4 SAMPLE-AES (`cbcs`) with the key inline
/// (`data:`) or at a URL, MPEG-TS SAMPLE-AES, and fMP4 SAMPLE-AES-CTR (`cenc`). Each downloads, and with the
/// origin stopped its offline copy plays through `stowctl play` and the gateway, frame-identical to what the
/// packager made (and to its input). The fMP4 titles are also proven without ffmpeg's decryption
/// (``CommonEncryptionProof``): every stored file equals the origin's, and the test's own `cbcs`/`cenc` reader
/// decrypts the stored files to the clear frames.
@Suite("Shaka Packager HLS", .serialized)
struct ShakaPackagerHLSTests {
    static let kid = ShakaPackagerDASHTests.kid
    static let key = ShakaPackagerDASHTests.key
    static var keyData: Data { Data(ClearKeyDASHTests.key) }
    static var dataURI: String { "data:text/plain;base64,\(keyData.base64EncodedString())" }

    /// SAMPLE-AES keeps the container: ffmpeg 5.1 decrypts both fMP4 (`cbcs`) and MPEG-TS SAMPLE-AES when it
    /// reads the playlists, so the offline copy is decoded as a player would.
    @Test(arguments: [("m4s", "data"), ("m4s", "url"), ("ts", "url")])
    func sampleAESTitlePlaysOffline(ext: String, keyAt: String) throws {
        let h = try Harness(name: "shaka-hls-\(ext)-\(keyAt)")
        let input = try ShakaPackager.input(h.root.appendingPathComponent("input"))
        let dir = h.media.appendingPathComponent("title")
        try ShakaPackager.hls(
            input: input, into: dir, scheme: "cbcs", ext: ext, kid: Self.kid, key: Self.key,
            keyURI: keyAt == "data" ? Self.dataURI : "key.bin")
        try Self.keyData.write(to: dir.appendingPathComponent("key.bin"))
        let video = try String(contentsOf: dir.appendingPathComponent("v.m3u8"), encoding: .utf8)
        #expect(video.contains("METHOD=SAMPLE-AES,") && video.contains(keyAt == "data" ? "URI=\"data:" : "key.bin"))
        let packaged = try OfflineCopy.framemd5(dir.appendingPathComponent("master.m3u8").path)
        try h.startOrigin()
        try h.startPipeline()

        let token = try h.submit("title/master.m3u8")
        let status = try h.waitForFinal(token, timeout: 120)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        #expect(status.playableOffline && status.protection?.scheme == "sample-aes", "\(status)")
        #expect(h.originRequests(matching: "/key.bin") == (keyAt == "data" ? 0 : 1), "a data: key is never fetched")
        let copy = try Self.titleDirectory(status)
        for (local, origin) in try Self.renditions(copy, origin: dir) {
            let compared = try OfflineCopy.compare(localMedia: local, originMedia: origin)
            #expect(compared == 4, "every segment of \(local.lastPathComponent) compared")
        }
        if ext == "m4s" {
            let clear = h.root.appendingPathComponent("clear")
            try ShakaPackager.hls(input: input, into: clear, scheme: nil, ext: ext)
            try CommonEncryptionProof.prove(
                copy: copy, origin: dir, clear: clear, input: input, key: Array(Self.keyData), scheme: "cbcs", in: h)
        }
        for file in try FileManager.default.subpathsOfDirectory(atPath: copy.path) {
            let url = copy.appendingPathComponent(file)
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { continue }
            let data = try Data(contentsOf: url)
            #expect(
                data.range(of: Self.keyData) == nil && !String(decoding: data, as: UTF8.self).contains("data:"),
                "the key is not stored with the title (\(file))")
        }

        #expect(h.terminate("origin") == 0)
        let offline = try OfflineCopy.framemd5(try h.startPlay(token))
        #expect(DASHMedia.hashes(offline) == DASHMedia.hashes(packaged), "the copy decodes like the packager's output")
        let source = DASHMedia.hashes(try OfflineCopy.framemd5(input.path))
        // ffmpeg 5.1 decodes the last frame of Shaka's SAMPLE-AES MPEG-TS unlike the input's, reading the packager's
        // own files too (its clear TS decodes equal): compared in full with those, with the input but that frame.
        let frames = ext == "ts" ? source.count - 1 : source.count
        #expect(Array(DASHMedia.hashes(offline).prefix(frames)) == Array(source.prefix(frames)))
        #expect(DASHMedia.hashes(try Self.gatewayFrames(h, token: token)) == DASHMedia.hashes(packaged))
    }

    /// SAMPLE-AES-CTR (`cenc`) fMP4: Shaka Packager v3.8.0 writes no `EXT-X-KEY` for identity CENC keys ("should
    /// be handled by a specific DRM system"), so the test adds the tag a packager that does would write, with the
    /// key inline. ffmpeg 5.1's HLS reader cannot decrypt SAMPLE-AES-CTR: the stored files are compared with the
    /// packager's byte for byte, and the init section and segments fetched through `stowctl play` are joined and
    /// decoded with the key `/keys/0` hands out (`-decryption_key`; `+ignidx`: each fragment has its own `sidx`).
    @Test func sampleAESCTRTitlePlaysOffline() throws {
        let h = try Harness(name: "shaka-hls-ctr")
        let input = try ShakaPackager.input(h.root.appendingPathComponent("input"))
        let dir = h.media.appendingPathComponent("title")
        try ShakaPackager.hls(
            input: input, into: dir, scheme: "cenc", ext: "m4s", kid: Self.kid, key: Self.key, keyURI: Self.dataURI)
        for name in ["v.m3u8", "a.m3u8"] {
            let url = dir.appendingPathComponent(name)
            let text = try String(contentsOf: url, encoding: .utf8)
            #expect(!text.contains("#EXT-X-KEY"), "Shaka Packager now writes the key tag: drop the test's own")
            let tag = "#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI=\"\(Self.dataURI)\",KEYFORMAT=\"identity\""
            try text.split(separator: "\n", omittingEmptySubsequences: false)
                .flatMap { $0.hasPrefix("#EXT-X-MAP:") ? [String($0), tag] : [String($0)] }
                .joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        }
        try h.startOrigin()
        try h.startPipeline()

        let token = try h.submit("title/master.m3u8")
        let status = try h.waitForFinal(token, timeout: 120)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        #expect(status.playableOffline && status.protection?.scheme == "cenc", "\(status)")
        let copy = try Self.titleDirectory(status)
        for (local, origin) in try Self.renditions(copy, origin: dir) {
            let compared = try OfflineCopy.compare(localMedia: local, originMedia: origin)
            #expect(compared == 4, "every segment of \(local.lastPathComponent) compared")
        }
        let clear = h.root.appendingPathComponent("clear")
        try ShakaPackager.hls(input: input, into: clear, scheme: nil, ext: "m4s")
        try CommonEncryptionProof.prove(
            copy: copy, origin: dir, clear: clear, input: input, key: Array(Self.keyData), scheme: "cenc", in: h)

        #expect(h.terminate("origin") == 0)
        let entry = try h.startPlay(token)
        let base = entry.replacingOccurrences(of: "/master.m3u8", with: "")
        let playlist = try Self.curl("\(base)/video/index.m3u8", in: h)
        let keyPath = try #require(Self.keyURI(playlist), "\(playlist)")
        #expect(keyPath.hasPrefix("/keys/") || keyPath.contains("/keys/"), "\(keyPath)")
        let served = try Self.curlData(keyPath.hasPrefix("/") ? Self.origin(of: entry) + keyPath : keyPath, in: h)
        #expect(served == Self.keyData, "stowctl play hands out the title's key")
        let joined = h.root.appendingPathComponent("joined.mp4")
        var bytes = Data()
        for line in playlist.split(separator: "\n") {
            let text = String(line)
            if text.hasPrefix("#EXT-X-MAP:"), let uri = Self.attribute("URI", in: text) {
                bytes += try Self.curlData("\(base)/video/\(uri)", in: h)
            } else if !text.hasPrefix("#"), !text.isEmpty {
                bytes += try Self.curlData("\(base)/video/\(text)", in: h)
            }
        }
        try bytes.write(to: joined)
        let decoded = try OfflineCopy.framemd5(
            joined.path,
            extra: ["-fflags", "+ignidx", "-decryption_key", Hex.encode(served)])
        #expect(DASHMedia.hashes(decoded) == DASHMedia.hashes(try OfflineCopy.framemd5(input.path)))

        let gateway = try h.startGateway(address: "127.0.0.1")
        let secret = try h.addDevice("tablet")
        let auth = ["Authorization: Bearer \(secret)"]
        let remote = try Self.curl("\(gateway)/titles/\(token)/video/index.m3u8", headers: auth, in: h)
        let remoteKey = try #require(Self.keyURI(remote), "\(remote)")
        let url = remoteKey.hasPrefix("/") ? gateway + remoteKey : remoteKey
        #expect(try Self.curlData(url, headers: auth, in: h) == Self.keyData, "the gateway hands the device the key")
    }

    /// A SAMPLE-AES segment keeps its MPEG-TS structure, so it is container-checked as delivered: one cut short
    /// of a whole packet at the origin is refused with `integrity` as it arrives instead of being stored.
    @Test func aBrokenSampleAESSegmentIsCaught() throws {
        let h = try Harness(name: "shaka-hls-broken")
        let input = try ShakaPackager.input(h.root.appendingPathComponent("input"))
        let dir = h.media.appendingPathComponent("title")
        try ShakaPackager.hls(
            input: input, into: dir, scheme: "cbcs", ext: "ts", kid: Self.kid, key: Self.key, keyURI: Self.dataURI)
        let segment = dir.appendingPathComponent("v/2.ts")
        let bytes = try Data(contentsOf: segment)
        try bytes.prefix(bytes.count - 100).write(to: segment)
        try h.startOrigin()
        try h.startPipeline()

        let token = try h.submit("title/master.m3u8")
        // Caught on its first fetch; the retries and the title's failure after them are `RetryBudgetServiceTests`.
        var refusal = ""
        try h.waitUntil(timeout: 60, "a worker to refuse v/2.ts (or the title to end)") {
            refusal = DecryptedCheckTests.integrityFailure(h, naming: "v/2.ts") ?? ""
            return !refusal.isEmpty || (try? h.status(token))?.state.isFinal == true
        }
        #expect(!refusal.isEmpty, "v/2.ts was not refused")
        #expect(refusal.contains("not stored"), "\(refusal)")
        #expect(try h.status(token).state != .completed)
        #expect(try !h.verifiedPaths(token).contains { $0.hasSuffix("v/2.ts") }, "the broken segment is not kept")
    }

    // MARK: helpers

    static func titleDirectory(_ status: TitleStatus) throws -> URL {
        URL(fileURLWithPath: try #require(status.localPlaylist)).deletingLastPathComponent()
    }

    /// (local media playlist, the packager's playlist it came from): `video/` holds `v.m3u8`, `audio…/` `a.m3u8`.
    static func renditions(_ copy: URL, origin: URL) throws -> [(URL, URL)] {
        let folders = try FileManager.default.contentsOfDirectory(atPath: copy.path).sorted()
        let video = try #require(folders.first { $0.hasPrefix("video") }, "\(folders)")
        let audio = try #require(folders.first { $0.hasPrefix("audio") }, "\(folders)")
        return [
            (copy.appendingPathComponent("\(video)/index.m3u8"), origin.appendingPathComponent("v.m3u8")),
            (copy.appendingPathComponent("\(audio)/index.m3u8"), origin.appendingPathComponent("a.m3u8")),
        ]
    }

    /// The video frames a device decodes through the gateway (bearer credential).
    static func gatewayFrames(_ h: Harness, token: String) throws -> String {
        let gateway = try h.startGateway(address: "127.0.0.1")
        let secret = try h.addDevice("tablet")
        return try OfflineCopy.framemd5(
            "\(gateway)/titles/\(token)/master.m3u8", extra: ["-headers", "Authorization: Bearer \(secret)\r\n"])
    }

    static func keyURI(_ playlist: String) -> String? {
        playlist.split(separator: "\n").first { $0.hasPrefix("#EXT-X-KEY:") }.flatMap {
            attribute("URI", in: String($0))
        }
    }

    static func attribute(_ name: String, in line: String) -> String? {
        guard let start = line.range(of: "\(name)=\"") else { return nil }
        let rest = line[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    static func origin(of url: String) -> String {
        guard let u = URL(string: url), let host = u.host, let port = u.port else { return url }
        return "\(u.scheme ?? "http")://\(host):\(port)"
    }

    static func curl(_ url: String, headers: [String] = [], in h: Harness) throws -> String {
        String(decoding: try curlData(url, headers: headers, in: h), as: UTF8.self)
    }

    static func curlData(_ url: String, headers: [String] = [], in h: Harness) throws -> Data {
        let out = h.root.appendingPathComponent("curl-\(UInt32.random(in: 0...UInt32.max)).bin")
        let header = headers.map { "-H '\($0)' " }.joined()
        let (code, said) = try TestMedia.shOutput("curl -sS -f \(header)-o '\(out.path)' '\(url)'", in: h.root)
        guard code == 0 else { throw HarnessError("curl \(url) exited \(code): \(said)") }
        return try Data(contentsOf: out)
    }
}
