import Foundation
import StowageProtocol
import Testing

@testable import StowageHLS

/// Inline (`data:`) keys and rfc8216bis's AES-256 methods in an offline plan.
@Suite("HLS data: keys and AES-256")
struct DataKeyPlanTests {
    let url = "http://o.test/v/index.m3u8"

    func plan(_ keyLine: String) throws -> ResolvedPlan {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n\(keyLine)\n#EXTINF:2,\na.ts\n#EXTINF:2,\nb.ts\n#EXT-X-ENDLIST\n"
        let p = try MediaPlaylist(text: text, url: url)
        return try OfflinePlanner.plan(
            master: nil, choice: nil, inputs: [.init(kind: .video, playlist: p, rendition: nil)])
    }

    @Test(arguments: ["AES-128", "SAMPLE-AES", "SAMPLE-AES-CTR"])
    func aDataKeyIsPlannedInlineAndServedAtKeysN(method: String) throws {
        let uri = "data:text/plain;base64," + Data(repeating: 7, count: 16).base64EncodedString()
        let iv = String(repeating: "0", count: 32)
        let plan = try plan("#EXT-X-KEY:METHOD=\(method),URI=\"\(uri)\",KEYFORMAT=\"identity\",IV=0x\(iv)")
        #expect(plan.keys == [PlannedKey(uri: uri, method: method)])
        let offline = plan.renditions[0].playlist
        #expect(offline.contains("URI=\"/keys/0\"") && !offline.contains("data:"), "\(offline)")
        #expect(HLSProtection.summarize([try MediaPlaylist(text: offline, url: url)])?.deviceOnly == false)
    }

    @Test func aes256AndAES256CTRTake32ByteKeys() throws {
        for method in ["AES-256", "AES-256-CTR"] {
            let uri = "data:text/plain;base64," + Data(repeating: 1, count: 32).base64EncodedString()
            let plan = try plan("#EXT-X-KEY:METHOD=\(method),URI=\"\(uri)\"")
            #expect(plan.keys.map(\.keyLength) == [32])
            #expect(plan.renditions[0].playlist.contains("METHOD=\(method),URI=\"/keys/0\""))
            #expect(plan.resources.allSatisfy { $0.encrypted })
            let fetched = try self.plan("#EXT-X-KEY:METHOD=\(method),URI=\"k.key\"")
            #expect(fetched.keys == [PlannedKey(uri: "http://o.test/v/k.key", method: method)])
        }
    }

    /// SAMPLE-AES and SAMPLE-AES-CTR encrypt samples inside an intact container: their segments are container-checked
    /// as delivered (not planned `encrypted`, which skips the check for whole-segment ciphertext). AES-128 ones are.
    @Test(arguments: [("SAMPLE-AES", false), ("SAMPLE-AES-CTR", false), ("AES-128", true), ("AES-256-CTR", true)])
    func onlyWholeSegmentMethodsSkipTheContainerCheck(method: String, whole: Bool) throws {
        let plan = try plan("#EXT-X-KEY:METHOD=\(method),URI=\"k.key\"")
        let segments = plan.resources.filter { $0.kind == .segment }
        #expect(segments.count == 2 && segments.allSatisfy { $0.encrypted == whole && $0.container == .mpegTS })
    }

    /// A malformed or wrong-sized `data:` key fails the plan, naming the line and the problem, not the key.
    @Test func aMalformedDataKeyFailsThePlanSayingWhy() {
        let short = "data:text/plain;base64," + Data(repeating: 9, count: 16).base64EncodedString()
        for (line, problem) in [
            ("#EXT-X-KEY:METHOD=AES-256,URI=\"\(short)\"", "holds 16 bytes; this key must be 32"),
            ("#EXT-X-KEY:METHOD=AES-128,URI=\"data:text/plain;base64,%%%\"", "'%' not followed"),
            ("#EXT-X-KEY:METHOD=AES-128,URI=\"data:nocomma\"", "no ','"),
        ] {
            #expect {
                try plan(line)
            } throws: { error in
                let e = error as? PlaylistError
                return e?.line == 3 && e?.message.contains(problem) == true && e?.message.contains("CQkJ") == false
            }
        }
    }
}
