import Crypto
import Foundation
import StowageProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Re-reads a stored file from disk in fixed-size chunks (memory stays bounded whatever the file size)
/// and checks its length, container structure and SHA-256.
public enum FileVerifier {
    public struct Verdict: Sendable, Equatable {
        public var bytes: Int64
        public var sha256: String
        /// nil when every check passed; otherwise the first failing check, in words.
        public var problem: String?
    }

    /// Checks `path`. `expectedBytes`/`expectedSHA256` nil skip those checks; `decryption` given, the container is
    /// checked inside the AES-CBC ciphertext the file holds. Blocking (reads, and sleeps to
    /// keep to `bytesPerSecond`): call it from a thread of its own, not from the Swift concurrency pool.
    public static func verify(
        path: String, expectedBytes: Int64?, expectedSHA256: String?,
        container: ContainerCheck.Kind, decryption: (key: Data, iv: Data)? = nil, chunkSize: Int = 1 << 20,
        bytesPerSecond: Int64? = nil
    ) -> Verdict {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = errno == ENOENT ? "file is missing" : "cannot open: \(String(cString: strerror(errno)))"
            return Verdict(bytes: 0, sha256: "", problem: reason)
        }
        defer { close(fd) }
        var hasher = SHA256()
        var checker = StructureCheck(kind: container, key: decryption?.key, iv: decryption?.iv)
        var total: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer.baseAddress, chunkSize)
            if n < 0 {
                if errno == EINTR { continue }
                return Verdict(bytes: total, sha256: "", problem: "read failed: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            hasher.update(bufferPointer: chunk)
            checker.feed(chunk)
            total += Int64(n)
            if let rate = bytesPerSecond, rate > 0 { usleep(UInt32(min(1_000_000, Int64(n) * 1_000_000 / rate))) }
        }
        let digest = Hex.encode(hasher.finalize())
        if let expectedBytes, expectedBytes != total {
            return Verdict(bytes: total, sha256: digest, problem: "length is \(total) bytes, expected \(expectedBytes)")
        }
        if let problem = checker.finish() {
            return Verdict(bytes: total, sha256: digest, problem: problem)
        }
        if let expectedSHA256, expectedSHA256.lowercased() != digest {
            return Verdict(
                bytes: total, sha256: digest,
                problem:
                    "SHA-256 \(digest.prefix(16))… differs from the \(expectedSHA256.prefix(16))… recorded "
                    + "when it was stored"
            )
        }
        return Verdict(bytes: total, sha256: digest, problem: nil)
    }
}
