@preconcurrency import Crypto
import Foundation
import StowageProtocol

/// The public half of a box's identity: what `stowctl box key` prints and what another box is given as
/// `--for-box` or `--trust` (the same JSON either way). The id is derived from the signing key, so a file that
/// claims another box's id with its own key does not match.
public struct BoxPublicKey: Codable, Sendable, Equatable, Hashable {
    /// 16 hex digits: the first 8 bytes of SHA-256 of the raw Ed25519 public key.
    public var id: String
    /// Ed25519 public key (32 raw bytes, base64): checks the signature of the box's bundles.
    public var signingKey: String
    /// X25519 public key (32 raw bytes, base64): content keys wrapped for this box use it.
    public var agreementKey: String

    public init(signing: Curve25519.Signing.PublicKey, agreement: Curve25519.KeyAgreement.PublicKey) {
        id = Self.id(of: signing)
        signingKey = signing.rawRepresentation.base64EncodedString()
        agreementKey = agreement.rawRepresentation.base64EncodedString()
    }

    /// The id a signing key gives.
    public static func id(of signing: Curve25519.Signing.PublicKey) -> String {
        Hex.encode(SHA256.hash(data: signing.rawRepresentation).prefix(8))
    }

    /// The Ed25519 key, or nil when the text is not one (or the id does not belong to it).
    public var signing: Curve25519.Signing.PublicKey? {
        guard let raw = Data(base64Encoded: signingKey),
            let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw), Self.id(of: key) == id
        else { return nil }
        return key
    }

    /// The X25519 key, or nil when the text is not one.
    public var agreement: Curve25519.KeyAgreement.PublicKey? {
        guard let raw = Data(base64Encoded: agreementKey) else { return nil }
        return try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: raw)
    }

    /// The one-line JSON of a public key file.
    public func fileText() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    /// Reads a public key file (`stowctl box key > box-b.pub`); the error says which file and why.
    public static func read(file url: URL) throws(BundleProblem) -> BoxPublicKey {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw BundleProblem(.io, file: url.path, "cannot be read")
        }
        guard let key = try? JSONDecoder().decode(BoxPublicKey.self, from: data), key.signing != nil,
            key.agreement != nil
        else {
            throw BundleProblem(
                .malformed, file: url.path, "is not a box public key (make one with `stowctl box key > FILE`)")
        }
        return key
    }
}
