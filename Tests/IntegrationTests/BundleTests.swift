import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// `stowctl export` and `stowctl import` between two homes on this machine (two schedulers, two sets of workers):
/// a title carried on a folder as a signed bundle, taken in with the origin stopped (docs/bundles.md).
@Suite("Bundles", .serialized)
struct BundleTests {
    /// The box's public key, saved where the other box's commands read it.
    func saveBoxKey(_ h: Harness) throws -> URL {
        let file = h.root.appendingPathComponent("box.pub")
        try h.waitUntil(timeout: 20, "the scheduler to answer box key") {
            let (code, out) = try h.stowctl(["box", "key"])
            guard code == 0, let line = out.split(separator: "\n").last else { return false }
            try Data(line.utf8).write(to: file)
            return true
        }
        return file
    }

    /// Every file under a folder (relative path → bytes).
    func files(under dir: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let walker = try #require(FileManager.default.enumerator(atPath: dir.path))
        while let path = walker.nextObject() as? String {
            if (walker.fileAttributes?[.type] as? FileAttributeType) == .typeRegular {
                out[path] = try Data(contentsOf: dir.appendingPathComponent(path))
            }
        }
        return out
    }

    /// What a refused import must leave as it was: the store's titles and everything under `titles/`.
    func snapshot(_ h: Harness) throws -> (list: String, titles: [String: Data]) {
        (try h.stowctl(["list", "--json"]).1, try files(under: h.home.appendingPathComponent("titles")))
    }

    /// A copy of the bundle, changed by `change`.
    func tampered(_ bundle: URL, _ name: String, _ change: (URL) throws -> Void) throws -> URL {
        let copy = bundle.deletingLastPathComponent().appendingPathComponent(name)
        try FileManager.default.copyItem(at: bundle, to: copy)
        try change(copy)
        return copy
    }

    func play(_ h: Harness, _ token: String) throws -> String {
        let frames = try OfflineCopy.framemd5(try h.startPlay(token))
        _ = h.terminate("play-\(token)")
        return frames
    }

    @Test func aTitleTravelsSignedAndWholeOrNotAtAll() throws {
        let a = try Harness(name: "bundle-a")
        let b = try Harness(name: "bundle-b")
        try TestMedia.aesExplicitIV(into: a.media, seconds: 4)
        try a.startOrigin()
        try a.startPipeline()
        try b.startPipeline()
        let (keyA, keyB) = (try saveBoxKey(a), try saveBoxKey(b))
        let (submitted, out) = try a.stowctl([
            "submit", a.originURL + "index.m3u8", "--rental", "24h", "--play-count", "5", "--wait",
        ])
        #expect(submitted == 0, "\(out)")
        let token = try #require(out.split(separator: "\n").last.map(String.init))
        let framesA = try play(a, token)  // one play on A: B's copy has 4 left
        let statusA = try a.status(token)

        // Export for B's key, and once more for no box; then the origin (and key server) goes away.
        let bundle = a.root.appendingPathComponent("bundle")
        let exported = try a.stowctlStreams(["export", token, bundle.path, "--for-box", keyB.path])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stderr.contains("ETA"), "the bar shows rate and ETA: \(exported.stderr)")
        let noKeys = a.root.appendingPathComponent("bundle-no-keys")
        #expect(try a.stowctl(["export", token, noKeys.path]).0 == 0)
        #expect(a.terminate("origin") != nil)

        // Damaged copies are refused naming the file; B's store and titles folder stay as they were.
        let manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: bundle.appendingPathComponent("bundle.json")))
                as? [String: Any])
        let listed = try #require(manifest["files"] as? [[String: Any]]).compactMap { $0["path"] as? String }
        let segment = try #require(listed.first { $0.hasSuffix(".ts") })
        let flipped = try tampered(bundle, "flipped") { dir in
            var bytes = try Data(contentsOf: dir.appendingPathComponent(segment))
            bytes[bytes.count / 2] ^= 0x01
            try bytes.write(to: dir.appendingPathComponent(segment))
        }
        let removed = try tampered(bundle, "removed") {
            try FileManager.default.removeItem(at: $0.appendingPathComponent(segment))
        }
        let edited = try tampered(bundle, "edited") { dir in
            let file = dir.appendingPathComponent("bundle.json")
            let text = try String(contentsOf: file, encoding: .utf8)
            let more = text.replacingOccurrences(of: "\"playCountLimit\" : 5", with: "\"playCountLimit\" : 50")
            #expect(more != text, "the edit gives more plays")
            try more.write(to: file, atomically: true, encoding: .utf8)
        }
        let extra = try tampered(bundle, "extra") { try Data("x".utf8).write(to: $0.appendingPathComponent("x.ts")) }
        let before = try snapshot(b)
        for (dir, file, words) in [
            (flipped, segment, "SHA-256"), (removed, segment, "not in its folder"),
            (edited, "bundle.json", "signature"),
            (extra, "x.ts", "not listed"),
        ] {
            let refused = try b.stowctlStreams(["import", dir.path, "--trust", keyA.path])
            #expect(refused.status == 1, "\(dir.lastPathComponent) is refused")
            #expect(refused.stderr.contains(file) && refused.stderr.contains(words), "\(refused.stderr)")
            let after = try snapshot(b)
            #expect(after.list == before.list && after.titles == before.titles, "\(dir.lastPathComponent) left nothing")
        }
        let untrusted = try b.stowctlStreams(["import", bundle.path])
        #expect(untrusted.status == 1 && untrusted.stderr.contains("not trusted"), "\(untrusted.stderr)")

        // The bundle as written: completed and playable on B without the origin, the same bytes and frames, the
        // same terms, the plays made on A carried over.
        let (imported, importOut) = try b.stowctl(["import", bundle.path, "--trust", keyA.path])
        #expect(imported == 0, "\(importOut)")
        let tokenB = try #require(importOut.split(separator: "\n").last.map(String.init))
        let statusB = try b.status(tokenB)
        #expect(statusB.state == .completed && statusB.playableOffline, "\(statusB)")
        #expect(statusB.license?.playsRemaining == 4 && statusB.license?.expiresAt == statusA.license?.expiresAt)
        let copyA = try files(under: a.home.appendingPathComponent("titles/\(token)"))
        let copyB = try files(under: b.home.appendingPathComponent("titles/\(tokenB)"))
        #expect(!copyA.isEmpty && copyA == copyB, "B holds A's bytes: \(copyA.keys.sorted()) \(copyB.keys.sorted())")
        #expect(try play(b, tokenB) == framesA)

        // A bundle for no box carries no key: B's copy waits for a license acquired online.
        let (second, secondOut) = try b.stowctl(["import", noKeys.path, "--trust-any"])
        #expect(second == 0, "\(secondOut)")
        let keyless = try b.status(try #require(secondOut.split(separator: "\n").last.map(String.init)))
        #expect(keyless.state == .completed && keyless.notPlayableReason?.code == .keysMissing, "\(keyless)")

        // --move: A gives the license up and says why; B's copy of the moved bundle plays.
        let moved = a.root.appendingPathComponent("bundle-moved")
        #expect(try a.stowctl(["export", token, moved.path, "--for-box", keyB.path, "--move"]).0 == 0)
        let gone = try a.status(token)
        #expect(!gone.playableOffline && gone.notPlayableReason?.code == .transferred, "\(gone)")
        #expect(gone.notPlayableReason?.message.contains("box ") == true)
        #expect(try a.stowctl(["playable", token]).0 == 1)
        let (third, thirdOut) = try b.stowctl(["import", moved.path, "--trust", keyA.path])
        #expect(third == 0, "\(thirdOut)")
        let tokenMoved = try #require(thirdOut.split(separator: "\n").last.map(String.init))
        #expect(try b.status(tokenMoved).playableOffline)
        #expect(try b.stowctl(["playable", tokenMoved]).0 == 0)
    }

    /// The Clear Key key a box's play server hands a player for the title (`POST /clearkey`), as hex.
    func clearKey(_ h: Harness, entry: String) throws -> String {
        let port = try #require(URL(string: entry)?.port)
        let kid = Data(ClearKeyDASHTests.kid).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let (code, answer) = try TestMedia.shOutput(
            "curl -sf -X POST -H 'Content-Type: application/json' "
                + "-d '{\"kids\":[\"\(kid)\"],\"type\":\"temporary\"}' http://127.0.0.1:\(port)/clearkey",
            in: h.root)
        #expect(code == 0, "\(answer)")
        let keys = try JSONDecoder().decode(ClearKeyDASHTests.LicenseAnswer.self, from: Data(answer.utf8)).keys
        let k = try #require(keys.first { $0.kid == kid }?.k)
        return ClearKeyDASHTests.hex(try #require(ClearKeyDASHTests.base64url(k)))
    }

    @Test func aClearKeyDASHTitleTravelsWithItsKeyForTheNamedBox() throws {
        let a = try Harness(name: "bundle-dash-a")
        let b = try Harness(name: "bundle-dash-b")
        try FileManager.default.createDirectory(at: a.media, withIntermediateDirectories: true)
        try ClearKeyDASHTests.make(a.media, licenseURL: "license/clearkey")
        try a.startOrigin(extra: ["--license-policy", a.media.appendingPathComponent("policy.json").path])
        try a.startPipeline()
        try b.startPipeline()
        let (keyA, keyB) = (try saveBoxKey(a), try saveBoxKey(b))
        let status = try a.waitForFinal(try a.submit("manifest.mpd"), timeout: 120)
        #expect(status.state == .completed && status.playableOffline, "\(String(describing: status.error))")
        let bundle = a.root.appendingPathComponent("bundle")
        #expect(try a.stowctl(["export", status.token, bundle.path, "--for-box", keyB.path]).0 == 0)
        #expect(a.terminate("origin") != nil)

        let (imported, out) = try b.stowctl(["import", bundle.path, "--trust", keyA.path])
        #expect(imported == 0, "\(out)")
        let token = try #require(out.split(separator: "\n").last.map(String.init))
        let copy = try b.status(token)
        #expect(copy.state == .completed && copy.playableOffline && copy.protection == status.protection, "\(copy)")
        #expect(copy.localPlaylist?.hasSuffix("/manifest.mpd") == true)
        let filesA = try files(under: a.home.appendingPathComponent("titles/\(status.token)"))
        #expect(filesA == (try files(under: b.home.appendingPathComponent("titles/\(token)"))))
        // B's play server hands out the key that came sealed in the bundle, and the copy decodes as A's does.
        let entryA = try a.startPlay(status.token)
        let framesA = try OfflineCopy.framemd5(entryA, extra: ["-cenc_decryption_key", try clearKey(a, entry: entryA)])
        _ = a.terminate("play-\(status.token)")
        let entryB = try b.startPlay(token)
        let keyHex = try clearKey(b, entry: entryB)
        #expect(keyHex == ClearKeyDASHTests.hex(ClearKeyDASHTests.key))
        #expect(try OfflineCopy.framemd5(entryB, extra: ["-cenc_decryption_key", keyHex]) == framesA)
        _ = b.terminate("play-\(token)")
    }
}
