import Foundation

/// The structural check of one file, whichever way it must be read: its container as stored, or the container
/// inside a whole-segment ciphertext once decrypted in memory (``DecryptingCheck``). The streaming fetch and the
/// check at rest both use it, so a file is judged the same way when it arrives and later.
public enum StructureCheck: Sendable {
    case plain(ContainerCheck.Checker)
    case decrypting(DecryptingCheck)

    /// `key`/`iv` given: the file is AES-CBC ciphertext of a `kind` container; otherwise `kind` as stored.
    public init(kind: ContainerCheck.Kind, key: Data? = nil, iv: Data? = nil) {
        if let key, let iv {
            self = .decrypting(DecryptingCheck(kind: kind, key: key, iv: iv))
        } else {
            self = .plain(ContainerCheck.Checker(kind: kind))
        }
    }

    /// Feeds the next chunk of the file as stored.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer) {
        switch self {
        case .plain(var c):
            c.feed(chunk)
            self = .plain(c)
        case .decrypting(var c):
            c.feed(chunk)
            self = .decrypting(c)
        }
    }

    /// nil when the file is sane; otherwise what is wrong, in words.
    public mutating func finish() -> String? {
        switch self {
        case .plain(let c):
            return c.finish()
        case .decrypting(var c):
            let verdict = c.finish()
            self = .decrypting(c)
            return verdict
        }
    }
}
