import CSystemShims
import Foundation
import StowageProtocol
import Testing

@testable import StowageFetch

@Suite("Part files: direct writes and the resume record")
struct PartFileTests {
    /// A fresh folder under `parent`, removed by the caller.
    static func folder(under parent: String) throws -> URL {
        let url = URL(fileURLWithPath: parent).appendingPathComponent("stowage-part-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Whether the temporary directory's filesystem accepts O_DIRECT (ext4, xfs and btrfs do).
    static let temporaryDoesDirectIO: Bool = {
        let path = NSTemporaryDirectory() + "/stowage-odirect-probe-\(getpid())"
        let fd = open(path, O_RDWR | O_CREAT, 0o644)
        defer {
            close(fd)
            unlink(path)
        }
        return fd >= 0 && stowage_set_direct_io(fd, 1) == 0
    }()

    static func bytes(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ Int(seed) &+ ($0 >> 12)) }
    }

    /// Streams `bytes` into `part` in chunks of the sizes given (cycled), as the download loop does.
    static func write(_ bytes: ArraySlice<UInt8>, to part: inout PartFile, chunks: [Int]) async throws {
        var offset = bytes.startIndex
        var i = 0
        while offset < bytes.endIndex {
            let end = min(bytes.endIndex, offset + chunks[i % chunks.count])
            var rest = offset
            while rest < end {
                let taken = try bytes[rest..<end].withUnsafeBytes { raw throws(TaskFailure) in try part.take(raw) }
                rest += taken
                if part.bufferIsFull { try await part.writeBuffer() }
            }
            offset = end
            i += 1
        }
    }

    @Test(.enabled(if: temporaryDoesDirectIO, "the temporary directory's filesystem does not do O_DIRECT"))
    func aLargeFileWrittenDirectlyHoldsEveryByteWhateverTheChunks() async throws {
        let dir = try Self.folder(under: NSTemporaryDirectory())
        defer { try? FileManager.default.removeItem(at: dir) }
        let content = Self.bytes(3 * PartFile.directBufferBytes + 4_321)
        for chunks in [[65_536], [1, 4_095, 70_000, 188], [PartFile.directBufferBytes + 1]] {
            let path = dir.appendingPathComponent("seg.ts.part").path
            var part = try PartFile(path: path)
            try part.truncate()
            part.writeDirectly()
            let direct = part.writesDirectly
            #expect(direct)
            try await Self.write(content[...], to: &part, chunks: chunks)
            let written = part.size
            #expect(written == Int64(content.count))
            try await part.commit(to: dir.appendingPathComponent("seg.ts").path, durable: false)
            part.close()
            let stored = try [UInt8](Data(contentsOf: dir.appendingPathComponent("seg.ts")))
            let same = stored == content
            #expect(same, "chunks \(chunks): \(stored.count) of \(content.count) bytes stored")
        }
    }

    /// A fetch that died left an unaligned prefix: the resumed fetch rewrites its last partial block with what
    /// follows, and the file is the whole resource, byte for byte.
    @Test func aResumedFileContinuesFromAnUnalignedPrefix() async throws {
        for parent in [NSTemporaryDirectory(), "/dev/shm"] where FileManager.default.fileExists(atPath: parent) {
            let dir = try Self.folder(under: parent)
            defer { try? FileManager.default.removeItem(at: dir) }
            let content = Self.bytes(2 * PartFile.directBufferBytes + 777, seed: 3)
            let path = dir.appendingPathComponent("seg.ts.part").path
            let kept = 300_001
            var first = try PartFile(path: path)
            try await Self.write(content[..<kept], to: &first, chunks: [10_000])
            first.close()
            var part = try PartFile(path: path)
            let size = part.size
            #expect(size == Int64(kept))
            part.writeDirectly()
            try await Self.write(content[kept...], to: &part, chunks: [65_536, 3])
            try await part.flush()
            part.close()
            let stored = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let same = stored == content
            #expect(same, "under \(parent): \(stored.count) of \(content.count) bytes stored")
        }
    }

    /// What a direct write has not written yet is lost with the process, and the file still holds a prefix of
    /// the resource that a later fetch can resume.
    @Test func aFileLeftWithoutAFlushHoldsAPrefix() async throws {
        let dir = try Self.folder(under: NSTemporaryDirectory())
        defer { try? FileManager.default.removeItem(at: dir) }
        let content = Self.bytes(PartFile.directBufferBytes * 2 + 10_000)
        let path = dir.appendingPathComponent("seg.ts.part").path
        var part = try PartFile(path: path)
        part.writeDirectly()
        try await Self.write(content[...], to: &part, chunks: [50_000])
        part.close()
        let stored = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let prefix = stored.count <= content.count && stored[...] == content[..<stored.count]
        #expect(prefix, "\(stored.count) bytes stored, not a prefix of the \(content.count)")
    }

    /// The resume record survives the fetch that wrote it (an extended attribute, or the `.meta` file on a
    /// filesystem without them) and is gone once the file is whole.
    @Test func theResumeRecordOutlivesTheFetchAndNotTheFile() async throws {
        for parent in [NSTemporaryDirectory(), "/dev/shm"] where FileManager.default.fileExists(atPath: parent) {
            let dir = try Self.folder(under: parent)
            defer { try? FileManager.default.removeItem(at: dir) }
            let path = dir.appendingPathComponent("seg.ts.part").path
            let meta = PartMeta(url: "http://origin/a.ts", rangeOffset: 42, validator: "\"etag-1\"")
            var part = try PartFile(path: path)
            part.saveMeta(meta)
            try await Self.write(Self.bytes(1_000)[...], to: &part, chunks: [1_000])
            part.close()
            var again = try PartFile(path: path)
            let loaded = again.loadMeta()
            #expect(loaded == meta, "under \(parent)")
            try await again.commit(to: dir.appendingPathComponent("seg.ts").path, durable: false)
            again.close()
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            #expect(leftovers == ["seg.ts"], "no resume file stays beside the finished file")
            var finished = try PartFile(path: dir.appendingPathComponent("seg.ts").path)
            let carried = finished.loadMeta()
            #expect(carried == nil, "the finished file carries no resume record")
        }
    }
}
