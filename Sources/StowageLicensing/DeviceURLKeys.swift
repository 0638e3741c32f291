@preconcurrency import Crypto
import Foundation
import StowageProtocol

/// The secrets of the gateway's devices at rest. The store keeps a device's verifier, SHA-256 of its secret:
/// enough to check a bearer secret (the verifier does not give the secret back), not enough to sign a URL. A
/// device's signed-URL key is HMAC-SHA256 keyed with a key derived from the master key (``KeyVault/derivedKey``),
/// over the device's name and verifier: a copy of the store alone forges no URL (before #29 the verifier itself
/// was the URL key). Nothing is migrated: existing devices keep their verifier and their secret works as before;
/// the URL key is derived again at each use, so URLs signed before the change stop matching and are signed again
/// with `stowctl devices sign`.
public struct DeviceURLKeys: Sendable {
    /// The HKDF info naming this key's purpose (a new version of the scheme would change it).
    public static let purpose = "stowage/device-url-keys/v1"
    private let root: SymmetricKey

    /// The URL keys of the devices, derived from the vault's master key.
    public init(vault: KeyVault) { root = vault.derivedKey(purpose: Self.purpose) }

    /// Over an explicit root key (tests).
    public init(root: SymmetricKey) { self.root = root }

    /// What the store keeps of a device's secret: its SHA-256 (the bearer check compares against it).
    public static func verifier(secret: String) -> Data { Data(SHA256.hash(data: Data(secret.utf8))) }

    /// The key of `device`'s signed URLs: HMAC-SHA256(root, "NAME" 0x00 verifier). The name binds the key to
    /// the device even if two devices had the same verifier.
    public func urlKey(device: String, verifier: Data) -> SymmetricKey {
        let material = Data(device.utf8) + Data([0]) + verifier
        return SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: material, using: root)))
    }

    /// The lowercase hex `sig` of a signed gateway URL (see ``DeviceSignature``).
    public func signature(device: String, verifier: Data, path: String, expires: Double) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data(DeviceSignature.message(path: path, expires: expires).utf8),
            using: urlKey(device: device, verifier: verifier))
        return Hex.encode(mac)
    }
}
