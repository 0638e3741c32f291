import Crypto
import Foundation
import StowageProtocol

/// Ed25519 over a catalogue's exact bytes: a detached signature (`URL.sig`, `FILE.sig`) checked against the public
/// keys given with `--catalog-key`. The bytes are checked as received, before any parsing, so a catalogue that
/// was changed on the way (or by a mirror) is refused whole.
public enum CatalogSignature {
    /// A public key from a `--catalog-key` file: 32 raw bytes, or their base64 or hex text.
    public static func publicKey(from contents: Data) throws(CatalogKeyError) -> Curve25519.Signing.PublicKey {
        guard let raw = decode(contents, length: 32),
            let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw)
        else {
            throw CatalogKeyError(
                message: "a catalogue key file holds one Ed25519 public key: 32 bytes, or their base64 or hex text "
                    + "(got \(contents.count) bytes)")
        }
        return key
    }

    /// Whether `signature` (64 raw bytes, or their base64 or hex text) signs `bytes` under one of `keys`.
    public static func verify(_ bytes: Data, signature: Data, keys: [Curve25519.Signing.PublicKey]) -> Bool {
        guard let raw = decode(signature, length: 64) else { return false }
        return keys.contains { $0.isValidSignature(raw, for: bytes) }
    }

    /// The signature file's contents for `bytes` (base64 text and a newline), as `stowctl` and tests write it.
    public static func sign(_ bytes: Data, with key: Curve25519.Signing.PrivateKey) throws -> Data {
        Data((try key.signature(for: bytes).base64EncodedString() + "\n").utf8)
    }

    /// Raw bytes of `length`, or base64 / hex text of them (surrounding white space ignored).
    static func decode(_ contents: Data, length: Int) -> Data? {
        if contents.count == length { return contents }
        let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if let data = Data(base64Encoded: text), data.count == length { return data }
        guard Hex.isHex(text, bytes: length), let bytes = try? Hex.decode(text) else { return nil }
        return Data(bytes)
    }
}

/// A `--catalog-key` file that holds no usable key.
public struct CatalogKeyError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
