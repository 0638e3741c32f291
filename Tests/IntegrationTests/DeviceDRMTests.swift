import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Titles only a device's DRM can license (Widevine in an MPD, FairPlay `skd://` in HLS): refused unless the
/// operator allows them, and then stored as delivered but never reported playable, saying why and what a device
/// needs.
@Suite("Device-only DRM", .serialized)
struct DeviceDRMTests {
    static let kid = "10000000-1000-1000-1000-100000000001"
    /// A Widevine `pssh` box (version 0, 32 bytes of data).
    static let widevinePSSH =
        "AAAAQHBzc2gAAAAA7e+LqXnWSs6jyCfc1R0h7QAAACAiGFlPVVRVQkU6ZDJmZjNiZWQ2ZmI4YTlkN0jj3JWbBg=="

    /// ffmpeg's MPD with Widevine and `cenc` signalled on every AdaptationSet.
    static func widevineMPD(_ dir: URL) throws {
        try DASHMedia.template(into: dir, timeline: true)
        let text = try String(contentsOf: dir.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        let protection = """
            <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc" \
            cenc:default_KID="\(kid)"/>
            <ContentProtection schemeIdUri="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed">\
            <cenc:pssh>\(widevinePSSH)</cenc:pssh></ContentProtection>
            """
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append(String(line))
            if line.contains("<AdaptationSet ") { lines.append(protection) }
        }
        try lines.joined(separator: "\n")
            .replacingOccurrences(of: "<MPD ", with: "<MPD xmlns:cenc=\"urn:mpeg:cenc:2013\" ")
            .write(to: dir.appendingPathComponent("widevine.mpd"), atomically: true, encoding: .utf8)
    }

    /// ffmpeg's fMP4 HLS with a FairPlay key (`skd://`, SAMPLE-AES) on every segment.
    static func fairPlayHLS(_ dir: URL) throws {
        try TestMedia.fmp4(into: dir, singleFile: false)
        try TestMedia.sh(
            """
            sed '/#EXT-X-MAP/a #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://title-1",\
            KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"' index.m3u8 > fairplay.m3u8
            grep -q skd:// fairplay.m3u8
            """, in: dir)
    }

    func check(_ h: Harness, path: String, system: String, scheme: String) throws -> TitleStatus {
        // Refused by default, before anything is fetched, naming the system and the way to allow it.
        let refused = try h.waitForFinal(try h.submit(path))
        #expect(refused.state == .failed && refused.error?.code == .refused)
        let message = refused.error?.message ?? ""
        #expect(message.contains(system) && message.contains("--allow-device-drm"), "\(message)")
        #expect(h.originRequests(matching: ".m4s") == 0, "nothing is fetched for a refused title")

        // Allowed: stored, never playable, with what a device needs.
        let token = try h.submit(path, ["--allow-device-drm"])
        let status = try h.waitForFinal(token)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        #expect(status.playableOffline == false)
        #expect(h.originRequests(matching: ".m4s") >= 3, "the allowed title is fetched")
        #expect(
            status.notPlayableReason?.code == .deviceLicenseRequired, "\(String(describing: status.notPlayableReason))")
        let protection = try #require(status.protection)
        #expect(protection.deviceOnly && protection.scheme == scheme)
        #expect(protection.systems.map(\.name) == [system])
        let (code, out) = try h.stowctl(["playable", token])
        #expect(code == 1 && out.contains("device"), "\(out)")
        let json = try h.stowctl(["status", token, "--json"]).1
        #expect(json.contains("\"notPlayableReason\"") && json.contains("\"device-license-required\""))
        return status
    }

    @Test func widevineMPDIsStoredButNeverPlayable() throws {
        let h = try Harness(name: "drm-widevine")
        try Self.widevineMPD(h.media)
        try h.startOrigin()
        try h.startPipeline()
        let status = try check(h, path: "widevine.mpd", system: "Widevine", scheme: "cenc")
        let widevine = try #require(status.protection?.systems.first)
        #expect(widevine.systemId == "edef8ba9-79d6-4ace-a3c8-27dcd51d21ed" && widevine.pssh == Self.widevinePSSH)
        #expect(status.protection?.kids == [Self.kid.replacingOccurrences(of: "-", with: "")])
        let manifest = try String(contentsOfFile: try #require(status.localPlaylist), encoding: .utf8)
        #expect(manifest.contains(Self.widevinePSSH), "the local MPD keeps the signalling a device licenses with")
    }

    @Test func fairPlayHLSIsStoredButNeverPlayable() throws {
        let h = try Harness(name: "drm-fairplay")
        try Self.fairPlayHLS(h.media)
        try h.startOrigin()
        try h.startPipeline()
        let status = try check(h, path: "fairplay.m3u8", system: "FairPlay", scheme: "sample-aes")
        #expect(status.protection?.systems.first?.systemId == "94ce86fb-07ff-4f43-adb8-93d2fa968ca2")
    }
}
