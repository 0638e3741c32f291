import Crypto
import StowageIntegrity
import StowageProtocol

/// The integrity checks of a file taken while its bytes stream in: SHA-256 over every byte and the container's
/// structure (the same ``ContainerCheck`` the integrity worker runs at rest). A fetch that passes is a verified
/// file without being read back; the integrity worker's read-back stays for checks at rest and scrubs.
struct StreamingCheck {
    private var hasher = SHA256()
    private var checker: StructureCheck?

    /// `container` nil: no structure check (encrypted or opaque bytes). `decryption` given: the container is
    /// checked inside the whole-segment ciphertext, decrypted in memory.
    init(container: Container?, decryption: SegmentDecryption? = nil) {
        checker = container.flatMap { ContainerCheck.Kind(rawValue: $0.rawValue) }.map {
            StructureCheck(kind: $0, key: decryption?.key, iv: decryption?.iv)
        }
    }

    /// Feeds the next bytes of the file, in order.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
        checker?.feed(bytes)
    }

    /// The file's hash, or what is wrong with its structure.
    mutating func finish() -> Result<String, Problem> {
        if let problem = checker?.finish() { return .failure(Problem(description: problem)) }
        return .success(Hex.encode(hasher.finalize()))
    }

    /// A structural check that failed, in words.
    struct Problem: Error {
        var description: String
    }
}
