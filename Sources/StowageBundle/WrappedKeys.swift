@preconcurrency import Crypto
import Foundation

/// A title's content keys sealed for one box: X25519 between a fresh key of this bundle and the receiving box's
/// agreement key, HKDF-SHA256 over the shared secret (salt: both public keys; info: the format), then AES-256-GCM
/// per content key with its title, its name and the manifest's binding (``BundleManifest/keyBinding()``: the
/// export id, terms, plays so far and `moved`) as associated data. Only the box holding the matching private key
/// opens them; a key moved to another name or title, or under rewritten terms (re-signed with any key), does not
/// open. Without `--for-box` a bundle has none.
public struct WrappedKeys: Codable, Sendable, Equatable {
    /// The id of the box the keys are for.
    public var forBox: String
    /// The bundle's one-time X25519 public key (raw, base64).
    public var ephemeralKey: String
    /// Each content key by its name in the exporting box (a plan index such as `0`, or `kid:<hex>`).
    public var entries: [Entry]

    public struct Entry: Codable, Sendable, Equatable {
        public var name: String
        /// AES-GCM nonce, ciphertext and tag, combined, base64.
        public var sealed: String
    }

    static let info = Data("stowage-bundle-keys-v2".utf8)

    /// Seals `keys` (name → key bytes) of title `token` for `recipient`, bound to `binding` (the manifest's
    /// ``BundleManifest/keyBinding()``).
    public static func seal(
        _ keys: [(name: String, key: [UInt8])], token: String, binding: Data, for recipient: BoxPublicKey
    ) throws(BundleProblem) -> WrappedKeys {
        guard let theirs = recipient.agreement else {
            throw BundleProblem(.malformed, file: "--for-box", "names an agreement key that is not one")
        }
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        do {
            let secret = try ephemeral.sharedSecretFromKeyAgreement(with: theirs)
            let wrapping = derive(secret, ephemeral: ephemeral.publicKey, recipient: theirs)
            let entries = try keys.map { name, key in
                let box = try AES.GCM.seal(
                    Data(key), using: wrapping, authenticating: aad(token: token, name: name, binding: binding))
                guard let combined = box.combined else { throw BundleProblem(.keys, file: name, "sealed to nothing") }
                return Entry(name: name, sealed: combined.base64EncodedString())
            }
            return WrappedKeys(
                forBox: recipient.id, ephemeralKey: ephemeral.publicKey.rawRepresentation.base64EncodedString(),
                entries: entries)
        } catch let problem as BundleProblem {
            throw problem
        } catch {
            throw BundleProblem(.keys, file: BundleLayout.manifestName, "content keys cannot be sealed: \(error)")
        }
    }

    /// Opens every key with this box's identity, under the manifest's `binding`. Keys for another box are refused by
    /// id before any crypto, and a key that does not open names itself.
    public func open(with identity: BoxIdentity, token: String, binding: Data) throws(BundleProblem) -> [(
        name: String, key: [UInt8]
    )] {
        let mine = identity.publicKey
        guard forBox == mine.id else {
            throw BundleProblem(
                .keys, file: BundleLayout.manifestName,
                "carries keys for box \(forBox), not this box (\(mine.id)): the title needs a license acquired online")
        }
        guard let raw = Data(base64Encoded: ephemeralKey),
            let ephemeral = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: raw),
            let secret = try? identity.agreement.sharedSecretFromKeyAgreement(with: ephemeral)
        else { throw BundleProblem(.keys, file: BundleLayout.manifestName, "has a one-time key that is not one") }
        let wrapping = Self.derive(secret, ephemeral: ephemeral, recipient: identity.agreement.publicKey)
        var opened: [(name: String, key: [UInt8])] = []
        for entry in entries {
            guard let data = Data(base64Encoded: entry.sealed), let box = try? AES.GCM.SealedBox(combined: data),
                let key = try? AES.GCM.open(
                    box, using: wrapping, authenticating: Self.aad(token: token, name: entry.name, binding: binding))
            else {
                throw BundleProblem(
                    .keys, file: BundleLayout.manifestName,
                    "content key \(entry.name.prefix(100)) does not open: sealed for other terms, export or title")
            }
            opened.append((entry.name, Array(key)))
        }
        return opened
    }

    static func derive(
        _ secret: SharedSecret, ephemeral: Curve25519.KeyAgreement.PublicKey,
        recipient: Curve25519.KeyAgreement.PublicKey
    ) -> SymmetricKey {
        secret.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: ephemeral.rawRepresentation + recipient.rawRepresentation, sharedInfo: info,
            outputByteCount: 32)
    }

    /// `<token>/<name>`, a zero byte, then the 32-byte binding.
    static func aad(token: String, name: String, binding: Data) -> Data {
        Data("\(token)/\(name)".utf8) + Data([0]) + binding
    }
}
