import Foundation
import StowageProtocol
import Testing

/// `data:` key URIs (RFC 2397) as packagers write them: base64 and percent-encoded, bounded, redacted.
@Suite("data: key URIs")
struct DataURITests {
    let key = (0..<16).map { UInt8($0 * 17) }

    @Test func readsBase64WithAnyMediaType() throws {
        let b64 = Data(key).base64EncodedString()
        for uri in [
            "data:text/plain;base64,\(b64)", "DATA:application/octet-stream;base64,\(b64)", "data:;base64,\(b64)",
        ] {
            #expect(try DataURI.decode(uri, expectedBytes: 16) == key, "\(uri)")
        }
    }

    @Test func readsPercentEncodedBase64AndBase64URL() throws {
        let b64 = Data(key).base64EncodedString()
        let escaped = b64.replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: "/", with: "%2F")
            .replacingOccurrences(of: "=", with: "%3D")
        #expect(try DataURI.decode("data:text/plain;base64,\(escaped)", expectedBytes: 16) == key)
        let url = b64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        #expect(try DataURI.decode("data:text/plain;base64,\(url)", expectedBytes: 16) == key)
    }

    @Test func readsPercentEncodedBytes() throws {
        let uri = "data:application/octet-stream," + key.map { String(format: "%%%02X", $0) }.joined()
        #expect(try DataURI.decode(uri, expectedBytes: 16) == key)
        #expect(try DataURI.decode("data:,0123456789abcdef", expectedBytes: 16) == Array("0123456789abcdef".utf8))
    }

    @Test func aes256KeysAre32Bytes() throws {
        let long = (0..<32).map { UInt8($0) }
        let uri = "data:text/plain;base64," + Data(long).base64EncodedString()
        #expect(try DataURI.decode(uri, expectedBytes: PlannedKey.keyLength(method: "AES-256")) == long)
        #expect(PlannedKey.keyLength(method: "AES-256-CTR") == 32)
        #expect(PlannedKey.keyLength(method: "SAMPLE-AES") == 16 && PlannedKey.keyLength(method: "AES-128") == 16)
        #expect(throws: DataURIError.self) { try DataURI.decode(uri, expectedBytes: 16) }
    }

    /// Each malformed URI fails with a message naming what is wrong (and never its data).
    @Test(arguments: [
        ("data:text/plain;base64", "no ','"),
        ("data:text/plain;base64,!!!!", "not base64"),
        ("data:text/plain;base64,AAAA", "holds 3 bytes; this key must be 16"),
        ("data:application/octet-stream,%4", "'%' not followed by two hex digits"),
        ("data:application/octet-stream,%+1" + String(repeating: "a", count: 14), "'%' not followed"),
        ("data:;base64," + String(repeating: "A", count: 2000), "characters long"),
        ("http://k/key", "does not start with 'data:'"),
    ])
    func malformedURIsSayWhatIsWrong(uri: String, problem: String) {
        #expect {
            try DataURI.decode(uri, expectedBytes: 16)
        } throws: { error in
            let text = "\(error)"
            return text.contains(problem) && !text.contains("AAAA") && text.hasPrefix("data: key URI: ")
        }
    }

    @Test func redactionHidesTheKey() {
        let uri = "data:text/plain;base64," + Data(key).base64EncodedString()
        #expect(URLRedaction.redacted(uri) == "data:text/plain;base64,…")
        #expect(DataURI.redacted("data:,abc") == "data:,…")
        #expect(URLRedaction.redacted("http://h/k?token=1") == "http://h/k?…")
    }
}
