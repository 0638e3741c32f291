import Foundation
import StowageProtocol
import Testing

@testable import StowageHLS

/// The key and IV of every whole-segment ciphertext, kept with the plan so its container can be checked decrypted.
@Suite("HLS segment ciphers")
struct SegmentCipherPlanTests {
    let url = "http://o.test/v/index.m3u8"

    func plan(_ body: String) throws -> ResolvedPlan {
        let p = try MediaPlaylist(text: "#EXTM3U\n#EXT-X-TARGETDURATION:2\n" + body + "#EXT-X-ENDLIST\n", url: url)
        return try OfflinePlanner.plan(
            master: nil, choice: nil, inputs: [.init(kind: .video, playlist: p, rendition: nil)])
    }

    @Test func ivsFollowTheMediaSequenceAndKeysTheirPositions() throws {
        let plan = try plan(
            """
            #EXT-X-MEDIA-SEQUENCE:7
            #EXT-X-KEY:METHOD=AES-128,URI="k0.key"
            #EXTINF:2,
            a.ts
            #EXTINF:2,
            b.ts
            #EXT-X-KEY:METHOD=AES-128,URI="k1.key",IV=0X00FF
            #EXTINF:2,
            c.ts
            #EXT-X-KEY:METHOD=NONE
            #EXTINF:2,
            d.ts

            """)
        #expect(plan.keys.map(\.uri) == ["http://o.test/v/k0.key", "http://o.test/v/k1.key"])
        #expect(
            plan.resources.map(\.cipher) == [
                SegmentCipher(key: 0, iv: String(repeating: "0", count: 31) + "7"),
                SegmentCipher(key: 0, iv: String(repeating: "0", count: 31) + "8"),
                SegmentCipher(key: 1, iv: String(repeating: "0", count: 28) + "00ff"),
                nil,
            ])
    }

    @Test(arguments: ["SAMPLE-AES", "SAMPLE-AES-CTR", "AES-256-CTR"])
    func otherMethodsKeepNoCipher(method: String) throws {
        let plan = try plan("#EXT-X-KEY:METHOD=\(method),URI=\"k.key\"\n#EXTINF:2,\na.ts\n")
        #expect(plan.resources.map(\.cipher) == [nil])
        #expect(plan.keys.count == 1)
    }

    /// A key before the `EXT-X-MAP` applies to the init section (RFC 8216 §4.3.2.4): it is ciphertext, with the
    /// key's IV; a map before any key, or after `METHOD=NONE` or a sample-encryption key, is clear.
    @Test func aKeyBeforeTheMapEncryptsTheInitSection() throws {
        let plan = try plan(
            """
            #EXT-X-MEDIA-SEQUENCE:3
            #EXT-X-MAP:URI="clear-init.mp4"
            #EXT-X-KEY:METHOD=AES-128,URI="k.key",IV=0x0A
            #EXTINF:2,
            a.m4s
            #EXT-X-MAP:URI="secret-init.mp4"
            #EXTINF:2,
            b.m4s
            #EXT-X-KEY:METHOD=AES-256-CTR,URI="k2.key",IV=0x0B
            #EXT-X-MAP:URI="ctr-init.mp4"
            #EXTINF:2,
            c.m4s
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="k3.key"
            #EXT-X-MAP:URI="sample-init.mp4"
            #EXTINF:2,
            d.m4s

            """)
        let inits = plan.resources.filter { $0.kind == .initSection }
        #expect(
            inits.map { $0.url.split(separator: "/").last ?? "" } == [
                "clear-init.mp4", "secret-init.mp4", "ctr-init.mp4", "sample-init.mp4",
            ])
        #expect(inits.map(\.encrypted) == [false, true, true, false])
        #expect(
            inits.map(\.cipher) == [nil, SegmentCipher(key: 0, iv: String(repeating: "0", count: 30) + "0a"), nil, nil])
    }
}
