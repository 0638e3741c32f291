import Foundation
import StowageProtocol
import Testing

/// `submit --key KID:KEY`: what is accepted, what the error names, that the key never shows in a description,
/// and that `SubmitRequest` stays wire-compatible (no `keys` when none; older requests decode).
@Suite("Operator keys")
struct OperatorKeyTests {
    static let kid = "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"
    static let key = "404142434445464748494a4b4c4d4e4f"

    @Test func hexAndUUIDFormsParse() throws {
        let plain = try OperatorKey(parsing: "\(Self.kid.uppercased()):\(Self.key)")
        #expect(plain == OperatorKey(kid: Self.kid, key: Self.key))
        let uuid = try OperatorKey(parsing: "a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf:\(Self.key)")
        #expect(uuid.kid == Self.kid && uuid.keyBytes == (0..<16).map { UInt8(0x40 + $0) })
    }

    @Test func badArgumentsNameWhatIsWrongButNeverTheKey() {
        #expect(throws: OperatorKeyError(.malformed, "expected KID:KEY")) { try OperatorKey(parsing: Self.kid) }
        #expect { try OperatorKey(parsing: "abc:\(Self.key)") } throws: {
            ($0 as? OperatorKeyError)?.code == .badKeyID && !"\($0)".contains(Self.key)
        }
        #expect { try OperatorKey(parsing: "\(Self.kid):4041") } throws: {
            ($0 as? OperatorKeyError)?.code == .badKey && "\($0)".contains(Self.kid)
        }
    }

    @Test func descriptionsRedactTheKey() throws {
        let key = OperatorKey(kid: Self.kid, key: Self.key)
        var request = SubmitRequest(
            url: "https://cdn.test/a.mpd", name: nil, priority: 0, headers: [], selection: .init())
        request.keys = [key]
        #expect(!"\(key)".contains(Self.key) && !"\(request)".contains(Self.key) && "\(key)".contains(Self.kid))
    }

    @Test func submitRequestStaysWireCompatible() throws {
        let plain = SubmitRequest(
            url: "https://cdn.test/a.mpd", name: nil, priority: 0, headers: [], selection: .init())
        let text = String(decoding: try JSONEncoder().encode(plain), as: UTF8.self)
        #expect(!text.contains("\"keys\""), "absent when none: \(text)")
        let decoded = try JSONDecoder().decode(SubmitRequest.self, from: Data(text.utf8))
        #expect(decoded.keys == nil && decoded == plain)
        var withKeys = plain
        withKeys.keys = [OperatorKey(kid: Self.kid, key: Self.key)]
        let again = try JSONDecoder().decode(SubmitRequest.self, from: try JSONEncoder().encode(withKeys))
        #expect(again == withKeys)
    }
}
