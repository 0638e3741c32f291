// swift-crypto 3 predates Sendable annotations on `SymmetricKey` (an immutable value; Sendable from
// swift-crypto 4): checked as Sendable through this import rather than an `@unchecked` KeyVault.
@preconcurrency import Crypto
import Foundation

/// Wraps content keys with a local master key (AES-256-GCM) so they are never at rest in the clear.
/// The associated data binds each wrapped key to its title and index: a wrapped key copied to another
/// title or position does not unwrap.
public struct KeyVault: Sendable {
    private let master: SymmetricKey

    /// A vault over `masterKey` (see ``loadMasterKey(home:environment:)``).
    public init(masterKey: SymmetricKey) { master = masterKey }

    /// Seals content key `index` of title `token` (nonce, ciphertext and tag, combined).
    public func wrap(_ key: [UInt8], token: String, index: Int) throws -> Data {
        let sealed = try AES.GCM.seal(Data(key), using: master, authenticating: Data("\(token)/\(index)".utf8))
        guard let combined = sealed.combined else { throw VaultError("AES-GCM produced no combined form") }
        return combined
    }

    /// Opens what ``wrap(_:token:index:)`` sealed for the same title and index.
    public func unwrap(_ wrapped: Data, token: String, index: Int) throws -> [UInt8] {
        do {
            let box = try AES.GCM.SealedBox(combined: wrapped)
            return Array(try AES.GCM.open(box, using: master, authenticating: Data("\(token)/\(index)".utf8)))
        } catch {
            throw VaultError(
                "key \(index) of \(token) does not unwrap with this master key "
                    + "(was STOWAGE_MASTER_KEY or master.key changed?)")
        }
    }

    /// A key for one purpose derived from the master key (HKDF-SHA256, the purpose as info): keys the scheduler
    /// needs besides content-key wrapping (e.g. ``DeviceURLKeys``) without another file to keep secret, and
    /// unrelated to each other and to the master key itself.
    public func derivedKey(purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: master, info: Data(purpose.utf8), outputByteCount: 32)
    }

    /// The master key: `STOWAGE_MASTER_KEY` (base64 of 32 bytes), else `<home>/master.key` (created 0600 if missing).
    public static func loadMasterKey(home: URL, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> SymmetricKey
    {
        if let text = environment["STOWAGE_MASTER_KEY"] {
            guard let data = Data(base64Encoded: text), data.count == 32 else {
                throw VaultError("STOWAGE_MASTER_KEY must be the base64 of 32 bytes (e.g. `openssl rand -base64 32`)")
            }
            return SymmetricKey(data: data)
        }
        let path = home.appendingPathComponent("master.key").path
        if let data = FileManager.default.contents(atPath: path) {
            guard data.count == 32 else {
                throw VaultError("\(path) must hold exactly 32 bytes; it holds \(data.count)")
            }
            let mode = (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0
            guard mode & 0o077 == 0 else {
                throw VaultError("\(path) is readable by others (mode \(String(mode, radix: 8))): chmod 600 it")
            }
            return SymmetricKey(data: data)
        }
        let key = SymmetricKey(size: .bits256)
        let data = key.withUnsafeBytes { Data($0) }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw VaultError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == 32, fsync(fd) == 0 else { throw VaultError("cannot write \(path)") }
        return key
    }
}

/// A master key that cannot be loaded or a key that does not unwrap, said for a person.
public struct VaultError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
