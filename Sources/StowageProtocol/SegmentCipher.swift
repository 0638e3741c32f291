import Foundation

/// How a whole-segment ciphertext (HLS `AES-128` / `AES-256`, DASH segment encryption) was made: AES-CBC with
/// PKCS#7 padding under key `key` of the plan and `iv`. Kept with the plan so a file can be checked *after*
/// decryption, in memory, both when it arrives and at rest: without it an encrypted segment's container is never
/// looked at, and a segment the origin broke before encrypting would pass as long as it hashes the same twice.
public struct SegmentCipher: Codable, Sendable, Equatable {
    /// Position of the key in the plan's keys (``ResolvedPlan/keys``), as `/keys/N` offline.
    public var key: Int
    /// The 16-byte IV, lowercase hex without `0x`.
    public var iv: String

    public init(key: Int, iv: String) {
        self.key = key
        self.iv = iv
    }

    /// The IV of the segment with media sequence number `sequence` when the playlist gives none
    /// (RFC 8216 §5.2: the number as a 128-bit big-endian integer), or `explicit` (`0x…`) when it does.
    public static func iv(explicit: String?, sequence: UInt64) -> String {
        if let explicit {
            let hex = explicit.lowercased().hasPrefix("0x") ? String(explicit.dropFirst(2)) : explicit
            let digits = hex.lowercased()
            return String(repeating: "0", count: max(0, 32 - digits.count)) + digits.suffix(32)
        }
        return String(repeating: "0", count: 16) + String(format: "%016llx", sequence)
    }
}

/// What a worker needs to decrypt one file in memory to check its container: the key itself and the IV.
/// It travels only inside a fetch or verify task (over the pipeline's ZeroMQ sockets, CURVE-encrypted between
/// hosts) and is never written to disk or logged: ``description`` says no more than its size.
public struct SegmentDecryption: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The raw key: 16 bytes (AES-128) or 32 (AES-256).
    public var key: Data
    /// The 16-byte IV.
    public var iv: Data

    public init(key: Data, iv: Data) {
        self.key = key
        self.iv = iv
    }

    public var description: String { "AES-\(key.count * 8)-CBC key (redacted)" }
}
