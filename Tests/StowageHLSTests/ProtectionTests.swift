import StowageProtocol
import Testing

@testable import StowageHLS

@Suite("HLS protection")
struct HLSProtectionTests {
    func playlist(_ keys: [String]) throws -> MediaPlaylist {
        let text =
            (["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXT-X-MAP:URI=\"init.mp4\""] + keys + [
                "#EXTINF:2,", "a.m4s", "#EXT-X-ENDLIST",
            ]).joined(separator: "\n") + "\n"
        return try MediaPlaylist(text: text, url: "http://o.test/v/index.m3u8")
    }

    @Test func clearMediaHasNoProtection() throws {
        #expect(HLSProtection.summarize([try playlist([])]) == nil)
    }

    @Test func aes128IsPlayableHere() throws {
        let p = try #require(HLSProtection.summarize([try playlist(["#EXT-X-KEY:METHOD=AES-128,URI=\"k.key\""])]))
        #expect(p.scheme == "aes-128" && !p.deviceOnly && p.systems.isEmpty)
    }

    @Test func fairPlayAndWidevineAreDeviceOnly() throws {
        let p = try #require(
            HLSProtection.summarize([
                try playlist([
                    "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://k1\",KEYFORMAT=\"com.apple.streamingkeydelivery\","
                        + "KEYFORMATVERSIONS=\"1\"",
                    "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"data:text/plain;base64,AAAAPnBzc2g=\","
                        + "KEYFORMAT=\"urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed\",KEYFORMATVERSIONS=\"1\"",
                ])
            ]))
        #expect(p.deviceOnly && p.scheme == "sample-aes")
        #expect(p.systems.map(\.name) == ["FairPlay", "Widevine"])
        #expect(p.systems.last?.pssh == "AAAAPnBzc2g=")
    }

    @Test func aClearKeyAlternativeMakesItPlayable() throws {
        let p = try #require(
            HLSProtection.summarize([
                try playlist([
                    "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://k1\",KEYFORMAT=\"com.apple.streamingkeydelivery\"",
                    "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"https://lic.test/ck\",KEYFORMAT=\"org.w3.clearkey\","
                        + "KEYID=0x1000000010001000100010000000000A",
                ])
            ]))
        #expect(!p.deviceOnly && p.kids == ["1000000010001000100010000000000a"])
        #expect(p.licenseUrls == ["https://lic.test/ck"])
    }
}
