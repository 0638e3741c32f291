import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// A CENC (`cenc`) DASH title licensed by W3C Clear Key, encrypted by the test from ffmpeg's clear fragments:
/// Stowage acquires the key from the MPD's license URL, stores the files exactly as delivered, and `stowctl play`
/// hands the key to a player (`POST /clearkey`) with which the offline copy decodes to the clear frames.
@Suite("Clear Key DASH", .serialized)
struct ClearKeyDASHTests {
    static let key: [UInt8] = (0..<16).map { UInt8(0x40 + $0) }
    static let kid: [UInt8] = (0..<16).map { UInt8(0xA0 + $0) }
    static let clearKeySystem: [UInt8] = [
        0xe2, 0x71, 0x9d, 0x58, 0xa9, 0x85, 0xb3, 0xc9, 0x78, 0x1a, 0xb0, 0x30, 0xaf, 0x78, 0xd3, 0x0e,
    ]

    static func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    static func uuid(_ bytes: [UInt8]) -> String {
        let h = hex(bytes)
        let i = h.startIndex
        func part(_ a: Int, _ b: Int) -> Substring { h[h.index(i, offsetBy: a)..<h.index(i, offsetBy: b)] }
        return [part(0, 8), part(8, 12), part(12, 16), part(16, 20), part(20, 32)].joined(separator: "-")
    }

    /// ffmpeg's clear DASH in `clear/`; every file encrypted beside it under the same name; an MPD that signals
    /// `cenc` and Clear Key with `licenseURL`; the origin's Clear Key table in `policy.json`.
    static func make(_ dir: URL, licenseURL: String) throws {
        let clear = dir.appendingPathComponent("clear")
        try DASHMedia.template(into: clear, timeline: true)
        let pssh = CENCPackager.pssh(systemID: clearKeySystem, kids: [kid])
        var seed: UInt64 = 1
        for name in try FileManager.default.contentsOfDirectory(atPath: clear.path) where name.hasSuffix(".m4s") {
            let bytes = [UInt8](try Data(contentsOf: clear.appendingPathComponent(name)))
            let sealed =
                name.hasPrefix("init-")
                ? try CENCPackager.encryptInit(bytes, kid: kid, pssh: [pssh])
                : try CENCPackager.encryptSegment(bytes, key: key, ivSeed: seed << 32)
            seed += 1
            try Data(sealed).write(to: dir.appendingPathComponent(name))
        }
        let protection = """
            <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc" \
            cenc:default_KID="\(uuid(kid))"/>
            <ContentProtection schemeIdUri="urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e" value="ClearKey1.0">\
            <clearkey:Laurl Lic_type="EME-1.0">\(licenseURL)</clearkey:Laurl></ContentProtection>
            """
        let text = try String(contentsOf: clear.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append(String(line))
            if line.contains("<AdaptationSet ") { lines.append(protection) }
        }
        try lines.joined(separator: "\n")
            .replacingOccurrences(
                of: "<MPD ",
                with: "<MPD xmlns:cenc=\"urn:mpeg:cenc:2013\" xmlns:clearkey=\"http://dashif.org/guidelines/clearKey\" "
            )
            .write(to: dir.appendingPathComponent("manifest.mpd"), atomically: true, encoding: .utf8)
        try "{\"clearkeys\": {\"\(hex(kid))\": \"\(hex(key))\"}}"
            .write(to: dir.appendingPathComponent("policy.json"), atomically: true, encoding: .utf8)
    }

    @Test func cencTitlePlaysOfflineWithTheKeyFromThePlayServer() throws {
        let h = try Harness(name: "dash-cenc")
        try FileManager.default.createDirectory(at: h.media, withIntermediateDirectories: true)
        try "{}".write(to: h.media.appendingPathComponent("policy.json"), atomically: true, encoding: .utf8)
        try h.startOrigin(extra: ["--license-policy", h.media.appendingPathComponent("policy.json").path])
        try Self.make(h.media, licenseURL: "license/clearkey")  // relative: resolved against the MPD's URL
        try h.startPipeline()

        let clearVideo = try DASHMedia.referenceFrames(
            h.media,
            files: DASHMedia.templateFiles(h.media.appendingPathComponent("clear"), stream: 0)
                .map { "clear/" + $0 }, stream: "v", name: "ref-v.mp4")
        let status = try h.waitForFinal(try h.submit("manifest.mpd"), timeout: 120)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        #expect(status.playableOffline && status.notPlayableReason == nil)
        let protection = try #require(status.protection)
        #expect(protection.scheme == "cenc" && !protection.deviceOnly && protection.kids == [Self.hex(Self.kid)])
        #expect(protection.systems.map(\.name) == ["ClearKey"])
        #expect(h.originRequests(matching: "/clearkey") == 1, "one Clear Key license request for the title")

        // Stored exactly as delivered: the encrypted bytes.
        let dir = URL(fileURLWithPath: try #require(status.localPlaylist)).deletingLastPathComponent()
        #expect(
            try Data(contentsOf: dir.appendingPathComponent("p0/video-0-0/seg-00002.m4s"))
                == Data(contentsOf: h.media.appendingPathComponent("chunk-stream0-00002.m4s")))
        let manifest = try String(contentsOf: dir.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        #expect(manifest.contains(">/clearkey<") && !manifest.contains(h.originURL), "\(manifest)")
        for args in [["status", status.token, "--json"], ["list", "--json"]] {
            #expect(!(try h.stowctl(args).1.contains(Self.hex(Self.key))), "the key never shows")
        }
        try expectKeyNotAtRest(h, Self.key, title: status.token, "the Clear Key key")

        #expect(h.terminate("origin") == 0)
        let entry = try h.startPlay(status.token)
        let port = try #require(URL(string: entry)?.port)
        let kidB64 = Data(Self.kid).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let (code, answer) = try TestMedia.shOutput(
            "curl -sf -X POST -H 'Content-Type: application/json' "
                + "-d '{\"kids\":[\"\(kidB64)\"],\"type\":\"temporary\"}' http://127.0.0.1:\(port)/clearkey",
            in: h.root)
        #expect(code == 0, "\(answer)")
        let keys = try JSONDecoder().decode(LicenseAnswer.self, from: Data(answer.utf8)).keys
        let k = try #require(keys.first { $0.kid == kidB64 }?.k)
        let keyHex = Self.hex(try #require(Self.base64url(k)))
        #expect(keyHex == Self.hex(Self.key), "the play server hands out the title's key")
        let played = try OfflineCopy.framemd5(entry, stream: "v", extra: ["-cenc_decryption_key", keyHex])
        #expect(
            DASHMedia.hashes(played) == DASHMedia.hashes(clearVideo), "the offline copy decodes to the clear frames")
        let clearAudio = try DASHMedia.referenceFrames(
            h.media,
            files: DASHMedia.templateFiles(h.media.appendingPathComponent("clear"), stream: 2).map { "clear/" + $0 },
            stream: "a", name: "ref-a.mp4")
        let playedAudio = try OfflineCopy.framemd5(entry, stream: "a", extra: ["-cenc_decryption_key", keyHex])
        #expect(DASHMedia.hashes(playedAudio) == DASHMedia.hashes(clearAudio), "and so does the audio")
        try checkGateway(h, token: status.token, kidB64: kidB64)
        let wrong = try? OfflineCopy.framemd5(
            entry, stream: "v", extra: ["-cenc_decryption_key", String(repeating: "0", count: 32)])
        #expect(wrong.map(DASHMedia.hashes) != DASHMedia.hashes(clearVideo), "a wrong key does not")
    }

    /// The gateway serves the title's MPD with the Clear Key URL under the title, and answers it for a device.
    func checkGateway(_ h: Harness, token: String, kidB64: String) throws {
        let gateway = try h.startGateway(address: "127.0.0.1")
        let secret = try h.addDevice("tablet")
        let base = "\(gateway)/titles/\(token)"
        let (code, mpd) = try TestMedia.shOutput(
            "curl -sf -H 'Authorization: Bearer \(secret)' \(base)/manifest.mpd", in: h.root)
        #expect(code == 0 && mpd.contains(">/titles/\(token)/clearkey<"), "\(mpd.prefix(600))")
        let (posted, answer) = try TestMedia.shOutput(
            "curl -sf -X POST -H 'Authorization: Bearer \(secret)' "
                + "-d '{\"kids\":[\"\(kidB64)\"]}' \(base)/clearkey", in: h.root)
        #expect(posted == 0, "\(answer)")
        let k = try JSONDecoder().decode(LicenseAnswer.self, from: Data(answer.utf8)).keys.first?.k
        #expect(k.flatMap(Self.base64url) == Self.key, "the gateway hands the device the title's key")
        let (refused, _) = try TestMedia.shOutput(
            "curl -sf -X POST -d '{\"kids\":[\"\(kidB64)\"]}' \(base)/clearkey", in: h.root)
        #expect(refused != 0, "no key without credentials")
    }

    struct LicenseAnswer: Decodable {
        struct Key: Decodable {
            var kid: String
            var k: String
        }
        var keys: [Key]
    }

    static func base64url(_ text: String) -> [UInt8]? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map { [UInt8]($0) }
    }
}
