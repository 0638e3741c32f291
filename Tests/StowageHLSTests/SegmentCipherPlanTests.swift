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
}
