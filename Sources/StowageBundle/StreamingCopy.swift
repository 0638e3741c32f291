@preconcurrency import Crypto
import Foundation
import StowageProtocol

/// Copies one file in fixed-size chunks while hashing it (SHA-256, incremental): memory stays one buffer whatever
/// the file's size, and the hash is of exactly the bytes written. With no destination it only hashes.
public enum StreamingCopy {
    /// The chunk size: large enough for disk throughput, small enough to bound memory.
    public static let chunkSize = 1 << 20

    /// Hashes `source` (and writes it to `destination` when given, created exclusively 0644); `progress` gets
    /// the bytes of each chunk. Returns the lowercase hex SHA-256 and the byte count.
    public static func copy(
        _ source: URL, to destination: URL?, progress: (Int) -> Void = { _ in }
    ) throws -> (sha256: String, size: Int64) {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        var output: FileHandle?
        if let destination {
            try FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: destination.path, contents: nil) else {
                throw BundleProblem(.io, file: destination.path, "cannot be created")
            }
            output = try FileHandle(forWritingTo: destination)
        }
        defer { try? output?.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        while true {
            let chunk = try input.read(upToCount: chunkSize)
            guard let chunk, !chunk.isEmpty else { break }
            hasher.update(data: chunk)
            try output?.write(contentsOf: chunk)
            size += Int64(chunk.count)
            progress(chunk.count)
        }
        try output?.synchronize()
        return (Hex.encode(hasher.finalize()), size)
    }
}
