import Crypto
import Foundation
import StowageProtocol
import StowageTestSupport
import Testing
import _CryptoExtras

/// DASH segment encryption (ISO/IEC 23009-4, `urn:mpeg:dash:sea:2012`), which no packager in reach writes: the
/// test encrypts ffmpeg's clear segments whole (AES-128-CBC, PKCS7) and writes the MPD's `sea:` elements — video
/// under two crypto periods (key A with an explicit IV, then key B at a `$Number$` URL with IVs from the segment
/// numbers), audio under key A. Stowage fetches each key once, stores the segments as delivered, and serves the
/// local MPD with its keys at `/keys/N`; the test's own SEA reader then decrypts what `stowctl play` and the
/// gateway serve, and the frames equal the clear source's.
@Suite("DASH segment encryption", .serialized)
struct SegmentEncryptionDASHTests {
    static let keyA: [UInt8] = (0..<16).map { UInt8(0x10 + $0) }
    static let keyB: [UInt8] = (0..<16).map { UInt8(0x60 + $0) }
    static let iv: [UInt8] = (0..<16).map { UInt8(0xC0 + $0) }

    static func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    /// The IV of segment `number` encrypted without `@IV`: the number, 128-bit big-endian.
    static func numberIV(_ number: Int) -> [UInt8] {
        [UInt8](repeating: 0, count: 8) + (0..<8).map { UInt8(truncatingIfNeeded: UInt64(number) >> (56 - 8 * $0)) }
    }

    static func encrypt(_ file: URL, to out: URL, key: [UInt8], iv: [UInt8]) throws {
        let sealed = try AES._CBC.encrypt(
            Data(contentsOf: file), using: SymmetricKey(data: key), iv: try AES._CBC.IV(ivBytes: iv))
        try sealed.write(to: out)
    }

    /// ffmpeg's clear DASH in `clear/`; beside it the same names with every media segment encrypted, the keys at
    /// `keys/a.bin` and `keys/k-2.bin`, and the MPD with segment encryption (`keyA` absolute for the audio).
    static func make(_ dir: URL, origin: String) throws {
        let clear = dir.appendingPathComponent("clear")
        try DASHMedia.template(into: clear, timeline: true)
        let keys = dir.appendingPathComponent("keys")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        try Data(keyA).write(to: keys.appendingPathComponent("a.bin"))
        try Data(keyB).write(to: keys.appendingPathComponent("k-2.bin"))
        for name in try FileManager.default.contentsOfDirectory(atPath: clear.path) where name.hasSuffix(".m4s") {
            let source = clear.appendingPathComponent(name)
            let out = dir.appendingPathComponent(name)
            guard name.hasPrefix("chunk-stream"), let number = Int(name.dropLast(4).suffix(5)) else {
                try FileManager.default.copyItem(at: source, to: out)  // initialization segments stay clear
                continue
            }
            if name.hasPrefix("chunk-stream2-") {
                try encrypt(source, to: out, key: keyA, iv: iv)
            } else {
                try encrypt(source, to: out, key: number == 1 ? keyA : keyB, iv: number == 1 ? iv : numberIV(number))
            }
        }
        let head = """
            <ContentProtection schemeIdUri="urn:mpeg:dash:sea:2012">
            <sea:SegmentEncryption schemeIdUri="urn:mpeg:dash:sea:aes128-cbc:2013"/>
            <sea:KeySystem keySystemUri="urn:mpeg:dash:sea:keysys:http:2013"/>
            """
        let video =
            head + "<sea:CryptoPeriod numSegments=\"1\" IV=\"0x\(hex(iv))\" keyUriTemplate=\"keys/a.bin\"/>"
            + "<sea:CryptoPeriod keyUriTemplate=\"keys/k-$Number$.bin\"/></ContentProtection>"
        let audio =
            head + "<sea:CryptoPeriod IV=\"0x\(hex(iv).uppercased())\" keyUriTemplate=\"\(origin)keys/a.bin\"/>"
            + "</ContentProtection>"
        var lines: [String] = []
        let text = try String(contentsOf: clear.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append(String(line))
            if line.contains("<AdaptationSet ") { lines.append(line.contains("id=\"0\"") ? video : audio) }
        }
        try lines.joined(separator: "\n")
            .replacingOccurrences(of: "<MPD ", with: "<MPD xmlns:sea=\"urn:mpeg:dash:schema:sea:2012\" ")
            .write(to: dir.appendingPathComponent("manifest.mpd"), atomically: true, encoding: .utf8)
    }

    @Test func segmentEncryptedTitlePlaysOfflineWithItsKeysFromThePlayServerAndTheGateway() throws {
        let h = try Harness(name: "dash-sea")
        try h.startOrigin()
        try Self.make(h.media, origin: h.originURL)
        try h.startPipeline()
        let reference = try [0, 2].map { n in
            try DASHMedia.referenceFrames(
                h.media,
                files: DASHMedia.templateFiles(h.media.appendingPathComponent("clear"), stream: n)
                    .map { "clear/" + $0 }, stream: n == 0 ? "v" : "a", name: "ref-\(n).mp4")
        }

        for command in ["estimate", "variants"] {
            let (code, out) = try h.stowctl([command, h.originURL + "manifest.mpd", "--json"])
            #expect(code == 0, "\(out)")
            let shown = try JSONDecoder().decode(Shown.self, from: Data(out.utf8)).protection
            #expect(shown?.scheme == "aes-128" && shown?.deviceOnly == false, "\(command) shows it: \(out)")
        }
        let status = try h.waitForFinal(try h.submit("manifest.mpd"), timeout: 120)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        #expect(status.playableOffline && status.notPlayableReason == nil)
        let protection = try #require(status.protection, "the protection is shown")
        #expect(protection.scheme == "aes-128" && !protection.deviceOnly)
        #expect(h.originRequests(containing: "/keys/a.bin") == 1, "key A is fetched once for both tracks")
        #expect(h.originRequests(containing: "/keys/k-2.bin") == 1, "key B from its $Number$ URL")

        // Stored exactly as delivered; the local MPD names the keys /keys/N and nothing of the origin.
        let dir = URL(fileURLWithPath: try #require(status.localPlaylist)).deletingLastPathComponent()
        #expect(
            try Data(contentsOf: dir.appendingPathComponent("p0/video-0-0/seg-00002.m4s"))
                == Data(contentsOf: h.media.appendingPathComponent("chunk-stream0-00002.m4s")))
        let manifest = try String(contentsOf: dir.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        #expect(manifest.contains("keyUriTemplate=\"/keys/0\"") && !manifest.contains(h.originURL), "\(manifest)")
        for args in [["status", status.token, "--json"], ["list", "--json"]] {
            let out = try h.stowctl(args).1
            #expect(!out.contains(Self.hex(Self.keyA)) && !out.contains(Self.hex(Self.keyB)), "keys never show")
        }

        #expect(h.terminate("origin") == 0)
        let entry = try h.startPlay(status.token)
        let reader = SEAReader(root: h.root, headers: [])
        for (index, stream) in ["v", "a"].enumerated() {
            let played = try reader.frames(mpd: entry, set: index, stream: stream)
            #expect(played.count > 50, "stream \(stream): \(played.count) frames")
            #expect(played == DASHMedia.hashes(reference[index]), "stream \(stream) decrypts to the clear frames")
        }

        let gateway = try h.startGateway(address: "127.0.0.1")
        let secret = try h.addDevice("tablet")
        let device = SEAReader(root: h.root, headers: ["Authorization: Bearer \(secret)"])
        let url = "\(gateway)/titles/\(status.token)/manifest.mpd"
        #expect(try device.text(url).contains("keyUriTemplate=\"/titles/\(status.token)/keys/0\""))
        #expect(try device.frames(mpd: url, set: 0, stream: "v") == DASHMedia.hashes(reference[0]), "the gateway too")
        let keyURL = "\(gateway)/titles/\(status.token)/keys/0"
        #expect(try h.httpStatus(keyURL) == 401, "no key without credentials")
    }

    /// What `estimate --json` and `variants --json` say of the protection.
    struct Shown: Decodable {
        var protection: TitleProtection?
    }
}

/// The test's own reader of a segment-encrypted local MPD (the forms Stowage writes: one SegmentTemplate with
/// `$Number%05d$` from 1 and a SegmentTimeline per AdaptationSet, `sea:CryptoPeriod` with `offset`, `numSegments`,
/// `IV`, `keyUriTemplate`): fetches the init segment, each media segment and its key over HTTP, decrypts, and
/// decodes the joined track.
struct SEAReader {
    var root: URL
    var headers: [String]

    struct Period {
        var offset: Int
        var count: Int?
        var iv: [UInt8]?
        var key: String
    }

    func get(_ url: String) throws -> Data {
        let out = root.appendingPathComponent("get-\(UUID().uuidString)")
        let headerArgs = headers.map { "-H '\($0)'" }.joined(separator: " ")
        let (code, text) = try TestMedia.shOutput("curl -sf \(headerArgs) -o '\(out.path)' '\(url)'", in: root)
        guard code == 0 else { throw HarnessError("GET \(url) failed (\(code)): \(text)") }
        defer { try? FileManager.default.removeItem(at: out) }
        return try Data(contentsOf: out)
    }

    func text(_ url: String) throws -> String { String(decoding: try get(url), as: UTF8.self) }

    static func attribute(_ name: String, in text: Substring) -> String? {
        guard let start = text.range(of: " \(name)=\"") else { return nil }
        let rest = text[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// The hashes of the frames of AdaptationSet `set` of the MPD at `mpd`, decrypted.
    func frames(mpd: String, set: Int, stream: String) throws -> [String] {
        let base = try #require(URL(string: mpd))
        let sets = try text(mpd).components(separatedBy: "<AdaptationSet").dropFirst()
        let chunk = Substring(sets[sets.startIndex + set])
        var periods: [Period] = []
        for element in chunk.components(separatedBy: "<sea:CryptoPeriod").dropFirst() {
            let e = Substring(element.prefix { $0 != ">" })
            let iv = Self.attribute("IV", in: e).map { hex in (try? Hex.decode(hex.dropFirst(2))) ?? [] }
            periods.append(
                Period(
                    offset: Int(Self.attribute("offset", in: e) ?? "0")!,
                    count: Self.attribute("numSegments", in: e).flatMap { Int($0) }, iv: iv,
                    key: try #require(Self.attribute("keyUriTemplate", in: e))))
        }
        let media = try #require(Self.attribute("media", in: chunk)).replacingOccurrences(of: "&amp;", with: "&")
        let initialization = try #require(Self.attribute("initialization", in: chunk))
        var segments = 0
        for s in chunk.components(separatedBy: "<S ").dropFirst() {
            segments += 1 + (Self.attribute("r", in: Substring(" " + s)).flatMap { Int($0) } ?? 0)
        }
        var joined = try get(URL(string: initialization, relativeTo: base)!.absoluteString)
        var number = 1
        var keys: [String: Data] = [:]
        for period in periods {
            number += period.offset
            let end = period.count.map { number + $0 } ?? segments + 1
            while number < end {
                let name = media.replacingOccurrences(of: "$Number%05d$", with: String(format: "%05d", number))
                let sealed = try get(URL(string: name, relativeTo: base)!.absoluteString)
                let keyURL = URL(string: period.key, relativeTo: base)!.absoluteString
                let key = try keys[keyURL] ?? get(keyURL)
                keys[keyURL] = key
                let iv = period.iv ?? SegmentEncryptionDASHTests.numberIV(number)
                joined.append(
                    try AES._CBC.decrypt(sealed, using: SymmetricKey(data: key), iv: try AES._CBC.IV(ivBytes: iv)))
                number += 1
            }
        }
        #expect(number == segments + 1, "every segment is under a crypto period")
        let file = root.appendingPathComponent("sea-\(UUID().uuidString).mp4")
        try joined.write(to: file)
        return DASHMedia.hashes(try OfflineCopy.framemd5(file.path, stream: stream))
    }
}
