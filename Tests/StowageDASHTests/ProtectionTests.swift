import Testing

@testable import StowageDASH

/// ContentProtection parsing and the title's protection summary.
@Suite("DASH protection")
struct ProtectionTests {
    func protections(_ text: String) throws -> [ContentProtection] {
        try Fixtures.mpd(text).periods[0].adaptationSets[0].representations[0].contentProtections
    }

    @Test func cencWithWidevineAndPlayReadyIsDeviceOnly() throws {
        let list = try protections(Fixtures.encrypted(clearKey: false))
        #expect(list.count == 3)
        #expect(list[0].defaultKID == "1000000010001000100010000000000a")
        #expect(list[1].pssh == [Fixtures.widevinePSSH])
        #expect(list[1].systemID == "edef8ba9-79d6-4ace-a3c8-27dcd51d21ed")
        #expect(list[2].licenseURLs.map(\.url) == ["https://pr.test/rightsmanager.asmx"])
        let summary = ProtectionSummary(list)
        #expect(summary.scheme == "cenc")
        #expect(summary.keyIDs == ["1000000010001000100010000000000a"])
        #expect(summary.systems.map(\.name) == ["Widevine", "PlayReady"])
        #expect(summary.systems[0].pssh == [Fixtures.widevinePSSH])
        #expect(summary.licenseURLs == ["https://pr.test/rightsmanager.asmx"])
        #expect(summary.isEncrypted)
        #expect(summary.isDeviceOnly)
    }

    /// Shaka Packager's raw-key output: the mp4protection element and only the W3C common PSSH. That is Clear
    /// Key's own format, not a device's DRM; the keys are planned for `--license-url` (or `--key`) to supply.
    @Test func theCommonPSSHAloneIsNotDeviceOnly() throws {
        let text = Fixtures.encrypted(clearKey: false).replacingOccurrences(
            of: "urn:uuid:EDEF8BA9-79D6-4ACE-A3C8-27DCD51D21ED", with: "urn:uuid:1077efec-c0b2-4d02-ace3-3c1e52e2fb4b")
        let summary = ProtectionSummary(try protections(text))
        #expect(summary.systems.map(\.name) == ["Common", "PlayReady"])
        #expect(summary.isEncrypted && !summary.isDeviceOnly)
        #expect(!DASHPlanner.protection(summary).deviceOnly)
        #expect(
            DASHPlanner.keys(summary, base: "https://cdn.test/a.mpd").map(\.keyID) == [
                "0x1000000010001000100010000000000a"
            ])
    }

    @Test func clearKeyIsNotDeviceOnlyAndNamesItsLicenseURL() throws {
        let summary = ProtectionSummary(try protections(Fixtures.encrypted(clearKey: true)))
        #expect(summary.scheme == "cbcs")
        #expect(summary.systems.map(\.name) == ["ClearKey"])
        #expect(summary.licenseURLs == ["https://keys.test/clearkey"])
        #expect(summary.isEncrypted && !summary.isDeviceOnly)
    }

    @Test func otherLicenseURLFormsAndTheW3CName() throws {
        let dashif = ContentProtection(
            schemeIdUri: "org.w3.clearkey",
            licenseURLs: [.init(url: "https://k.test/l", element: "Laurl", namespace: "https://dashif.org/CPS")])
        let summary = ProtectionSummary([dashif])
        #expect(summary.systems.map(\.id) == [ProtectionSummary.clearKeySystemID])
        #expect(!summary.isDeviceOnly)
        let fairPlayOnly = ProtectionSummary([
            ContentProtection(schemeIdUri: "urn:mpeg:dash:mp4protection:2011", value: "cbcs"),
            ContentProtection(schemeIdUri: "urn:uuid:94ce86fb-07ff-4f43-adb8-93d2fa968ca2"),
        ])
        #expect(fairPlayOnly.systems.map(\.name) == ["FairPlay"] && fairPlayOnly.isDeviceOnly)
        #expect(!ProtectionSummary([]).isEncrypted && !ProtectionSummary([]).isDeviceOnly)
        // dashif:Laurl and ms:laurl in an MPD.
        let text = Fixtures.encrypted(clearKey: true)
            .replacingOccurrences(
                of: "<clearkey:Laurl Lic_type=\"EME-1.0\">https://keys.test/clearkey</clearkey:Laurl>",
                with: "<dashif:Laurl xmlns:dashif=\"https://dashif.org/CPS\">https://d.test/ck</dashif:Laurl>"
                    + "<ms:laurl xmlns:ms=\"urn:microsoft\" licenseUrl=\"https://ms.test/l\"/>")
        let urls = try protections(text)[1].licenseURLs
        #expect(urls.map(\.url) == ["https://d.test/ck", "https://ms.test/l"])
        #expect(urls.map(\.namespace) == ["https://dashif.org/CPS", "urn:microsoft"])
    }

    @Test func badKeyIDAndPSSHAreNamed() {
        let badKID = Fixtures.encrypted(clearKey: false).replacingOccurrences(
            of: "10000000-1000-1000-1000-10000000000A", with: "not-a-kid")
        let kidError = Fixtures.error { _ = try Fixtures.mpd(badKID) }
        #expect(kidError?.code == .invalidAttribute)
        #expect(kidError?.message.contains("ContentProtection@cenc:default_KID") == true)
        let badPSSH = Fixtures.encrypted(clearKey: false).replacingOccurrences(
            of: Fixtures.widevinePSSH, with: "%%%")
        #expect(Fixtures.error { _ = try Fixtures.mpd(badPSSH) }?.element == "cenc:pssh")
    }
}
