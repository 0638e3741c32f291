import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// DASH segment encryption (`urn:mpeg:dash:sea:2012`, what Shaka Player's `dash-aes-128` asset uses) over Shaka
/// Packager's own clear DASH: no packager in reach writes SEA, so each of its media segments is encrypted whole
/// with `openssl enc -aes-128-cbc` and its MPD gets the `sea:` elements by hand — video under two crypto periods
/// (key A with an explicit IV for segments 1–2, then key B at a `$Number$` URL with IVs from the segment numbers),
/// audio under key A at an absolute URL. The title downloads, is stored as delivered, and with the origin stopped
/// its offline MPD plays through `stowctl play` and the gateway (keys at `/keys/N`), decrypting to the packager's
/// clear frames; a wrong key at the origin is caught by verification and nothing of it is kept.
@Suite("Shaka Packager DASH segment encryption", .serialized)
struct ShakaPackagerSEATests {
    static let keyA = SegmentEncryptionDASHTests.keyA
    static let keyB = SegmentEncryptionDASHTests.keyB
    static let iv = SegmentEncryptionDASHTests.iv

    /// Shaka's clear DASH in `clear/` (kept as the reference); in `dir` the same files with the media segments
    /// encrypted by openssl, keys under `keys/` (`keyB` as `k-3.bin`, or `wrongB` in its place), and the SEA MPD.
    static func make(_ dir: URL, clear: URL, origin: String, wrongB: [UInt8]? = nil) throws {
        let keys = dir.appendingPathComponent("keys")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        try Data(keyA).write(to: keys.appendingPathComponent("a.bin"))
        try Data(wrongB ?? keyB).write(to: keys.appendingPathComponent("k-3.bin"))
        let hex = SegmentEncryptionDASHTests.hex
        var script = ""
        for folder in ["v", "a"] {
            script +=
                "mkdir -p '\(dir.path)/\(folder)'; cp '\(clear.path)/\(folder)/init.mp4' '\(dir.path)/\(folder)/'\n"
            for number in 1...4 {
                let (key, iv) =
                    folder == "a" || number <= 2
                    ? (keyA, iv) : (keyB, SegmentEncryptionDASHTests.numberIV(number))
                script +=
                    "openssl enc -aes-128-cbc -K \(hex(key)) -iv \(hex(iv)) -in '\(clear.path)/\(folder)/\(number).m4s'"
                    + " -out '\(dir.path)/\(folder)/\(number).m4s'\n"
            }
        }
        _ = try TestMedia.sh(script, in: dir)
        let head = """
                  <ContentProtection schemeIdUri="urn:mpeg:dash:sea:2012">
                    <sea:SegmentEncryption schemeIdUri="urn:mpeg:dash:sea:aes128-cbc:2013"/>
                    <sea:KeySystem keySystemUri="urn:mpeg:dash:sea:keysys:http:2013"/>
            """
        let video =
            head + "\n        <sea:CryptoPeriod numSegments=\"2\" IV=\"0x\(hex(iv))\" keyUriTemplate=\"keys/a.bin\"/>"
            + "\n        <sea:CryptoPeriod keyUriTemplate=\"keys/k-$Number$.bin\"/>\n      </ContentProtection>"
        let audio =
            head + "\n        <sea:CryptoPeriod IV=\"0x\(hex(iv))\" keyUriTemplate=\"\(origin)keys/a.bin\"/>"
            + "\n      </ContentProtection>"
        var lines: [String] = []
        let text = try String(contentsOf: clear.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append(String(line))
            if line.contains("<AdaptationSet ") { lines.append(line.contains("contentType=\"video\"") ? video : audio) }
        }
        let mpd = lines.joined(separator: "\n")
            .replacingOccurrences(of: "<MPD ", with: "<MPD xmlns:sea=\"urn:mpeg:dash:schema:sea:2012\" ")
        #expect(mpd.components(separatedBy: "<sea:CryptoPeriod").count == 4, "\(mpd)")
        try mpd.write(to: dir.appendingPathComponent("manifest.mpd"), atomically: true, encoding: .utf8)
    }

    /// The frame hashes of `files` (under `dir`) joined and decoded, as ``SEAReader`` decodes what it decrypts.
    static func joinedFrames(_ dir: URL, _ files: [String], stream: String, in h: Harness) throws -> [String] {
        var joined = Data()
        for name in files { joined += try Data(contentsOf: dir.appendingPathComponent(name)) }
        let file = h.root.appendingPathComponent("joined-\(UUID().uuidString).mp4")
        try joined.write(to: file)
        return DASHMedia.hashes(try OfflineCopy.framemd5(file.path, stream: stream))
    }

    @Test func shakaSegmentsEncryptedWholePlayOfflineFromTheirStoredCiphertext() throws {
        let h = try Harness(name: "shaka-sea")
        let input = try ShakaPackager.input(h.root.appendingPathComponent("input"))
        let clear = h.root.appendingPathComponent("clear")
        try ShakaPackager.clearDASH(input: input, into: clear)
        try h.startOrigin()
        let dir = h.media.appendingPathComponent("sea")
        try Self.make(dir, clear: clear, origin: h.originURL + "sea/")
        try h.startPipeline()
        let video = DASHMedia.hashes(try OfflineCopy.framemd5(input.path, stream: "v"))
        let audio = try Self.joinedFrames(
            clear, ["a/init.mp4"] + (1...4).map { "a/\($0).m4s" }, stream: "a", in: h)

        let estimate = try h.stowctlStreams(["estimate", h.originURL + "sea/manifest.mpd", "--json"])
        #expect(estimate.status == 0 && estimate.stdout.contains("aes-128"), "\(estimate.stdout) \(estimate.stderr)")
        let status = try h.waitForFinal(try h.submit("sea/manifest.mpd"), timeout: 120)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        #expect(status.playableOffline && status.protection?.scheme == "aes-128", "\(status)")
        #expect(h.originRequests(containing: "/keys/a.bin") == 1 && h.originRequests(containing: "/keys/k-3.bin") == 1)

        // Stored as delivered: every media file equals the origin's ciphertext (init sections clear).
        let copy = URL(fileURLWithPath: try #require(status.localPlaylist)).deletingLastPathComponent()
        let folders = try FileManager.default.contentsOfDirectory(atPath: copy.appendingPathComponent("p0").path)
        for (kind, source) in [("video", "v"), ("audio", "a")] {
            let folder = try #require(folders.first { $0.hasPrefix(kind) }, "\(folders)")
            for number in 0...4 {
                let local = number == 0 ? "init.mp4" : String(format: "seg-%05d.m4s", number)
                let origin = number == 0 ? "init.mp4" : "\(number).m4s"
                #expect(
                    try Data(contentsOf: copy.appendingPathComponent("p0/\(folder)/\(local)"))
                        == Data(contentsOf: dir.appendingPathComponent("\(source)/\(origin)")), "\(folder)/\(local)")
            }
        }

        let (verified, report) = try h.stowctl(["verify", status.token])
        #expect(verified == 0, "verified again at rest, each segment decrypted in memory: \(report)")

        #expect(h.terminate("origin") == 0)
        let entry = try h.startPlay(status.token)
        let reader = SEAReader(root: h.root, headers: [])
        #expect(try reader.frames(mpd: entry, set: 0, stream: "v") == video, "the video decrypts to the input's")
        #expect(try reader.frames(mpd: entry, set: 1, stream: "a") == audio, "the audio to the packager's clear")
        let gateway = try h.startGateway(address: "127.0.0.1")
        let device = SEAReader(root: h.root, headers: ["Authorization: Bearer \(try h.addDevice("tablet"))"])
        let url = "\(gateway)/titles/\(status.token)/manifest.mpd"
        #expect(try device.frames(mpd: url, set: 0, stream: "v") == video, "the gateway serves it too")
        #expect(try device.frames(mpd: url, set: 1, stream: "a") == audio)
    }

    /// The origin hands out a wrong key B: segments 3 and 4 of the video decrypt to no valid padding or container,
    /// so the worker refuses them after decryption, stores neither, and the title does not complete.
    @Test func aWrongKeyIsCaughtByVerification() throws {
        let h = try Harness(name: "shaka-sea-wrong")
        let input = try ShakaPackager.input(h.root.appendingPathComponent("input"))
        let clear = h.root.appendingPathComponent("clear")
        try ShakaPackager.clearDASH(input: input, into: clear)
        try h.startOrigin()
        try Self.make(
            h.media.appendingPathComponent("bad"), clear: clear, origin: h.originURL + "bad/",
            wrongB: Self.keyB.map { $0 ^ 0x5A })
        try h.startPipeline()

        let token = try h.submit("bad/manifest.mpd")
        var refusal = ""
        try h.waitUntil(timeout: 60, "a worker to refuse v/3.m4s (or the title to end)") {
            refusal = DecryptedCheckTests.integrityFailure(h, naming: "v/3.m4s") ?? ""
            return !refusal.isEmpty || (try? h.status(token))?.state.isFinal == true
        }
        #expect(refusal.contains("a wrong key") && refusal.contains("not stored"), "\(refusal)")
        #expect(try h.status(token).state != .completed)
        try h.waitUntil(timeout: 60, "key A's video segment 2 to be verified") {
            try h.verifiedPaths(token).contains { $0.hasSuffix("/bad/v/2.m4s") }
        }
        let kept = try h.verifiedPaths(token)
        #expect(!kept.contains { $0.hasSuffix("/bad/v/3.m4s") || $0.hasSuffix("/bad/v/4.m4s") }, "\(kept)")
    }
}
