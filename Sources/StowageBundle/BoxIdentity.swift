@preconcurrency import Crypto
import Foundation

/// This box's identity: an Ed25519 key that signs its bundles and an X25519 key other boxes wrap content keys
/// for. Made once and kept beside `master.key` as `box.key` (mode 0600, 64 raw bytes: signing then agreement),
/// so a box keeps its id across restarts and upgrades; losing the file makes a new box as far as others trust.
public struct BoxIdentity: Sendable {
    /// The file name under the box's home.
    public static let fileName = "box.key"

    public let signing: Curve25519.Signing.PrivateKey
    public let agreement: Curve25519.KeyAgreement.PrivateKey

    public init(
        signing: Curve25519.Signing.PrivateKey = .init(), agreement: Curve25519.KeyAgreement.PrivateKey = .init()
    ) {
        self.signing = signing
        self.agreement = agreement
    }

    /// What other boxes are given: `stowctl box key`.
    public var publicKey: BoxPublicKey { BoxPublicKey(signing: signing.publicKey, agreement: agreement.publicKey) }

    /// Loads `<home>/box.key`, creating it (0600, exclusively) the first time.
    public static func loadOrCreate(home: URL) throws(BundleProblem) -> BoxIdentity {
        let path = home.appendingPathComponent(fileName).path
        if let data = FileManager.default.contents(atPath: path) {
            let mode = (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0
            guard mode & 0o077 == 0 else {
                throw BundleProblem(
                    .io, file: path, "is readable by others (mode \(String(mode, radix: 8))): chmod 600 it")
            }
            guard data.count == 64,
                let signing = try? Curve25519.Signing.PrivateKey(rawRepresentation: data.prefix(32)),
                let agreement = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: data.suffix(32))
            else { throw BundleProblem(.malformed, file: path, "must hold 64 bytes of key; it holds \(data.count)") }
            return BoxIdentity(signing: signing, agreement: agreement)
        }
        let identity = BoxIdentity()
        let data = identity.signing.rawRepresentation + identity.agreement.rawRepresentation
        // Written whole to a file of its own, then linked into place: a crash never leaves a short box.key behind
        // (which would stop every later start), and link(2), unlike rename, never replaces one another process
        // made meanwhile.
        let temporary = path + ".new-\(getpid())"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw BundleProblem(.io, file: path, "cannot be created: \(String(cString: strerror(errno)))")
        }
        defer { unlink(temporary) }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == 64, synced else { throw BundleProblem(.io, file: path, "cannot be written") }
        guard link(temporary, path) == 0 else {
            // Another process made it between the read and now: use theirs.
            if errno == EEXIST { return try loadOrCreate(home: home) }
            throw BundleProblem(.io, file: path, "cannot be created: \(String(cString: strerror(errno)))")
        }
        let directory = open(home.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
        return identity
    }
}
