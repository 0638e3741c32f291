/// A content key the operator holds (`stowctl submit --key KID:KEY`), for titles whose owner has the keys: no
/// license server is asked. Both halves are 32 hex digits, as packagers and N_m3u8DL-RE write them. The key is
/// secret: its description never shows it, so a logged request cannot leak it.
public struct OperatorKey: Codable, Sendable, Equatable, CustomStringConvertible {
    /// Key ID, 32 lowercase hex digits.
    public var kid: String
    /// The 16-byte AES key, 32 lowercase hex digits.
    public var key: String

    public init(kid: String, key: String) {
        self.kid = kid
        self.key = key
    }

    /// Parses `KID:KEY`; a KID written as a UUID (with dashes) is accepted.
    public init(parsing text: String) throws(OperatorKeyError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw OperatorKeyError(.malformed, "expected KID:KEY") }
        let kid = parts[0].replacingOccurrences(of: "-", with: "").lowercased()
        let key = parts[1].lowercased()
        guard Self.isHex32(kid) else {
            throw OperatorKeyError(.badKeyID, "key ID '\(parts[0].prefix(40))' is not 32 hex digits")
        }
        guard Self.isHex32(key) else {
            throw OperatorKeyError(.badKey, "the key for key ID \(kid) is not 32 hex digits (a 16-byte AES key)")
        }
        self.init(kid: kid, key: key)
    }

    /// The key's 16 bytes.
    public var keyBytes: [UInt8] { (try? Hex.decode(key)) ?? [] }

    /// Names the key ID only.
    public var description: String { "\(kid):<redacted>" }

    static func isHex32(_ text: String) -> Bool { Hex.isHex(text, bytes: 16) }
}

/// Why a `--key` argument cannot be used; the message says what to fix.
public struct OperatorKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case malformed = "key-malformed"
        case badKeyID = "key-id-invalid"
        case badKey = "key-invalid"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "--key: \(message) (\(code.rawValue))" }
}
