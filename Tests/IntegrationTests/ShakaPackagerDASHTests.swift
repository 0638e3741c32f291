import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Shaka Packager's usual raw-key DASH (`cenc` and `cbcs`, only the W3C common PSSH signalled): with a Clear Key
/// server named by `--license-url` the title is not device-only DRM; it downloads, and with the origin stopped its
/// offline copy plays through `stowctl play` (and the gateway) frame-identical to the packager's input.
@Suite("Shaka Packager DASH", .serialized)
struct ShakaPackagerDASHTests {
    static let kid = ClearKeyDASHTests.hex(ClearKeyDASHTests.kid)
    static let key = ClearKeyDASHTests.hex(ClearKeyDASHTests.key)

    @Test(arguments: ["cenc", "cbcs"])
    func rawKeyTitleWithALicenseURLPlaysOffline(scheme: String) throws {
        let h = try Harness(name: "shaka-\(scheme)")
        let input = try ShakaPackager.input(h.root.appendingPathComponent("input"))
        try ShakaPackager.rawKeyDASH(
            input: input, into: h.media.appendingPathComponent(scheme), scheme: scheme, kid: Self.kid, key: Self.key)
        let mpd = try String(contentsOf: h.media.appendingPathComponent("\(scheme)/manifest.mpd"), encoding: .utf8)
        #expect(mpd.contains("1077efec-c0b2-4d02-ace3-3c1e52e2fb4b") && !mpd.contains("e2719d58"), "\(mpd)")
        let policy = h.media.appendingPathComponent("policy.json")
        try "{\"clearkeys\": {\"\(Self.kid)\": \"\(Self.key)\"}}".write(to: policy, atomically: true, encoding: .utf8)
        try h.startOrigin(extra: ["--license-policy", policy.path])
        try h.startPipeline()

        let estimate = try h.stowctlStreams(["estimate", h.originURL + "\(scheme)/manifest.mpd"])
        #expect(estimate.status == 0 && !estimate.stderr.contains("refuses"), "\(estimate.stderr)")
        let token = try h.submit("\(scheme)/manifest.mpd", ["--license-url", h.originURL + "license/clearkey"])
        let status = try h.waitForFinal(token, timeout: 120)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        #expect(status.playableOffline && status.notPlayableReason == nil)
        let protection = try #require(status.protection)
        #expect(protection.scheme == scheme && !protection.deviceOnly && protection.kids == [Self.kid])
        #expect(protection.systems.map(\.systemId) == [TitleProtection.commonSystemID])
        #expect(h.originRequests(matching: "/clearkey") == 1, "one Clear Key license request for the title")
        for args in [["status", token, "--json"], ["list", "--json"]] {
            #expect(!(try h.stowctl(args).1.contains(Self.key)), "the key never shows")
        }

        #expect(h.terminate("origin") == 0)
        try Self.playsLikeTheInput(
            h, token: token, input: input, packagedMPD: h.media.appendingPathComponent("\(scheme)/manifest.mpd"))
        try ClearKeyDASHTests().checkGateway(h, token: token, kidB64: Self.kidBase64url)
    }

    /// `submit --key`: the operator's key licenses the title with the terms given; the origin has no license
    /// server at all, and the key shows in no output, event or log.
    @Test(arguments: ["cenc", "cbcs"])
    func rawKeyTitleWithOperatorKeysPlaysWithoutALicenseServer(scheme: String) throws {
        let h = try Harness(name: "shaka-key-\(scheme)")
        let input = try ShakaPackager.input(h.root.appendingPathComponent("input"))
        try ShakaPackager.rawKeyDASH(
            input: input, into: h.media.appendingPathComponent(scheme), scheme: scheme, kid: Self.kid, key: Self.key)
        try h.startOrigin()
        try h.startPipeline()

        let token = try h.submit("\(scheme)/manifest.mpd", ["--key", "\(Self.kid):\(Self.key)", "--rental", "2h"])
        let status = try h.waitForFinal(token, timeout: 120)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        #expect(status.playableOffline && status.license?.kind == .rental && status.license?.expiresAt != nil)
        #expect(h.originRequests(containing: "license") == 0, "no license server is asked")
        // `renew` grants the operator's (new) terms again here, at once; there is still no server to ask.
        let before = try #require(status.license?.expiresAt)
        let (renewed, out) = try h.stowctl(["renew", token, "--rental", "4h"])
        #expect(renewed == 0 && out.contains("ok: rental"), "\(out)")
        let after = try h.status(token)
        #expect(after.license?.expiresAt.map { $0 > before } == true && after.playableOffline, "\(after)")
        #expect(h.originRequests(containing: "license") == 0, "renewing asks no license server")
        for args in [["status", token, "--json"], ["status", token], ["list", "--json"]] {
            #expect(!(try h.stowctl(args).1.contains(Self.key)), "the key never shows in \(args[0])")
        }
        try expectKeyNotAtRest(h, ClearKeyDASHTests.key, title: token, "the --key key")

        #expect(h.terminate("origin") == 0)
        try Self.playsLikeTheInput(
            h, token: token, input: input, packagedMPD: h.media.appendingPathComponent("\(scheme)/manifest.mpd"))
        try ClearKeyDASHTests().checkGateway(h, token: token, kidB64: Self.kidBase64url)
    }

    /// A key ID the title needs and no `--key` gives, or a `--key` the title does not use, fails the title
    /// naming the key ID.
    @Test func aMissingOrAnExtraKeyIDIsNamed() throws {
        let h = try Harness(name: "shaka-key-ids")
        let input = try ShakaPackager.input(h.root.appendingPathComponent("input"))
        try ShakaPackager.rawKeyDASH(
            input: input, into: h.media.appendingPathComponent("cenc"), scheme: "cenc", kid: Self.kid, key: Self.key)
        try h.startOrigin()
        try h.startPipeline()
        let other = String(repeating: "b", count: 32)
        let missing = try h.waitForFinal(try h.submit("cenc/manifest.mpd", ["--key", "\(other):\(Self.key)"]))
        #expect(missing.state == .failed && missing.error?.message.contains(Self.kid) == true, "\(missing)")
        try FileManager.default.copyItem(
            at: h.media.appendingPathComponent("cenc"), to: h.media.appendingPathComponent("again"))
        let extra = try h.waitForFinal(
            try h.submit("again/manifest.mpd", ["--key", "\(Self.kid):\(Self.key)", "--key", "\(other):\(Self.key)"]))
        #expect(extra.state == .failed && extra.error?.message.contains(other) == true, "\(extra)")
        let bad = try h.stowctlStreams(["submit", h.originURL + "cenc/manifest.mpd", "--key", "\(Self.kid):12"])
        #expect(bad.status != 0 && bad.stderr.contains(Self.kid) && bad.stderr.contains("32 hex"), "\(bad.stderr)")
    }

    /// Only device systems signalled (Widevine and PlayReady, no common PSSH): `estimate`, `variants` and `submit`
    /// give the same refusal without a key source; with `--license-url` (a Clear Key server that has the key)
    /// the title downloads and plays.
    @Test func deviceSystemsAloneAreRefusedAlikeUnlessAKeySourceIsGiven() throws {
        let h = try Harness(name: "shaka-device")
        let input = try ShakaPackager.input(h.root.appendingPathComponent("input"))
        for dir in ["wv", "wv2"] {
            try ShakaPackager.rawKeyDASH(
                input: input, into: h.media.appendingPathComponent(dir), scheme: "cenc", kid: Self.kid,
                key: Self.key, systems: "Widevine,PlayReady")
        }
        let policy = h.media.appendingPathComponent("policy.json")
        try "{\"clearkeys\": {\"\(Self.kid)\": \"\(Self.key)\"}}".write(to: policy, atomically: true, encoding: .utf8)
        try h.startOrigin(extra: ["--license-policy", policy.path])
        try h.startPipeline()

        let url = h.originURL + "wv/manifest.mpd"
        let refused = try h.waitForFinal(try h.submit("wv/manifest.mpd"))
        let reason = try #require(refused.error, "\(refused)")
        #expect(
            refused.state == .failed && reason.code == .refused && reason.message.contains("Widevine")
                && reason.message.contains("PlayReady"), "\(reason.message)")
        for command in ["estimate", "variants"] {
            let out = try h.stowctlStreams([command, url])
            #expect(out.status == 0 && out.stderr.contains(reason.message), "\(command): \(out.stderr)")
        }

        let token = try h.submit("wv2/manifest.mpd", ["--license-url", h.originURL + "license/clearkey"])
        let status = try h.waitForFinal(token, timeout: 120)
        #expect(status.state == .completed && status.playableOffline, "\(String(describing: status.error))")
        #expect(status.protection?.deviceOnly == false)
        #expect(h.terminate("origin") == 0)
        let entry = try h.startPlay(token)
        let video = try OfflineCopy.framemd5(entry, stream: "v", extra: ["-cenc_decryption_key", Self.key])
        let source = try OfflineCopy.framemd5(input.path, stream: "v")
        #expect(DASHMedia.hashes(video) == DASHMedia.hashes(source), "the video decodes to the input's frames")
    }

    static var kidBase64url: String {
        Data(ClearKeyDASHTests.kid).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// `stowctl play` hands out the key at `/clearkey`, and the offline copy decodes with it to the input's frames,
    /// video and audio.
    static func playsLikeTheInput(_ h: Harness, token: String, input: URL, packagedMPD: URL) throws {
        let entry = try h.startPlay(token)
        let port = try #require(URL(string: entry)?.port)
        let (code, answer) = try TestMedia.shOutput(
            "curl -sf -X POST -H 'Content-Type: application/json' "
                + "-d '{\"kids\":[\"\(kidBase64url)\"],\"type\":\"temporary\"}' http://127.0.0.1:\(port)/clearkey",
            in: h.root)
        #expect(code == 0, "\(answer)")
        let keys = try JSONDecoder().decode(ClearKeyDASHTests.LicenseAnswer.self, from: Data(answer.utf8)).keys
        let k = try #require(keys.first { $0.kid == kidBase64url }?.k)
        let keyHex = ClearKeyDASHTests.hex(try #require(ClearKeyDASHTests.base64url(k)))
        #expect(keyHex == key, "the play server hands out the title's key")
        let video = try OfflineCopy.framemd5(entry, stream: "v", extra: ["-cenc_decryption_key", keyHex])
        let source = try OfflineCopy.framemd5(input.path, stream: "v")
        #expect(DASHMedia.hashes(video) == DASHMedia.hashes(source), "the video decodes to the input's frames")
        // Audio against the packager's own output decrypted (its DASH keeps the AAC priming frame that the
        // input's MP4 edit list hides).
        let audio = try OfflineCopy.framemd5(entry, stream: "a", extra: ["-cenc_decryption_key", keyHex])
        let packaged = try OfflineCopy.framemd5(packagedMPD.path, stream: "a", extra: ["-cenc_decryption_key", key])
        #expect(DASHMedia.hashes(audio) == DASHMedia.hashes(packaged), "the audio decodes to the packaged frames")
    }
}
