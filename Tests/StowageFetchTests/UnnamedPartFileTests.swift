import Foundation
import StowageProtocol
import Testing

@testable import StowageFetch

/// A fresh fetch writes an unnamed file that appears under its final name only when whole.
@Suite("Part files: unnamed until whole", .serialized)
struct UnnamedPartFileTests {
    static func names(in dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    }

    @Test(.enabled(if: PartFile.unnamedFilesWork, "/proc is not mounted: every fetch writes a named .part file"))
    func aFreshFetchLeavesNoNameUntilTheFileIsWhole() async throws {
        for parent in [NSTemporaryDirectory(), "/dev/shm"] where FileManager.default.fileExists(atPath: parent) {
            let dir = try PartFileTests.folder(under: parent)
            defer { try? FileManager.default.removeItem(at: dir) }
            // The folder does not exist yet: opening creates it.
            let destination = dir.appendingPathComponent("video/seg-1.ts").path
            var part = try PartFile.open(for: destination)
            let named = part.named
            #expect(!named, "under \(parent): a fresh fetch needs no .part name")
            let content = PartFileTests.bytes(10_000)
            try await PartFileTests.write(content[...], to: &part, chunks: [4_096])
            let whileWriting = try Self.names(in: dir.appendingPathComponent("video"))
            #expect(whileWriting.isEmpty, "under \(parent): nothing is visible while the file is written")
            try await part.commit(to: destination, durable: true)
            part.close()
            let after = try Self.names(in: dir.appendingPathComponent("video"))
            #expect(after == ["seg-1.ts"], "under \(parent)")
            let stored = try [UInt8](Data(contentsOf: URL(fileURLWithPath: destination)))
            let same = stored == content
            #expect(same, "under \(parent): \(stored.count) of \(content.count) bytes")
        }
    }

    /// A file fetched again replaces the earlier copy whole, and leaves no other name behind.
    @Test(.enabled(if: PartFile.unnamedFilesWork, "/proc is not mounted"))
    func aFileFetchedAgainReplacesTheEarlierCopy() async throws {
        let dir = try PartFileTests.folder(under: NSTemporaryDirectory())
        defer { try? FileManager.default.removeItem(at: dir) }
        let destination = dir.appendingPathComponent("seg.ts").path
        try Data("an earlier, damaged copy".utf8).write(to: URL(fileURLWithPath: destination))
        var part = try PartFile.open(for: destination)
        let content = PartFileTests.bytes(5_000, seed: 9)
        try await PartFileTests.write(content[...], to: &part, chunks: [5_000])
        try await part.commit(to: destination, durable: false)
        part.close()
        let stored = try [UInt8](Data(contentsOf: URL(fileURLWithPath: destination)))
        let same = stored == content
        #expect(same)
        #expect(try Self.names(in: dir) == ["seg.ts"])
    }

    /// A file that must outlive the fetch (one worth resuming) takes its `.part` name and lock; a later fetch
    /// finds and resumes it, and a second fetch at the same time is refused.
    @Test(.enabled(if: PartFile.unnamedFilesWork, "/proc is not mounted"))
    func aNamedFileIsResumedAndLocked() async throws {
        let dir = try PartFileTests.folder(under: NSTemporaryDirectory())
        defer { try? FileManager.default.removeItem(at: dir) }
        let destination = dir.appendingPathComponent("seg.ts").path
        let content = PartFileTests.bytes(200_000, seed: 5)
        var first = try PartFile.open(for: destination)
        try first.name()
        try await PartFileTests.write(content[..<70_000], to: &first, chunks: [8_192])
        #expect(throws: TaskFailure.self) { _ = try PartFile.open(for: destination) }
        first.close()
        #expect(try Self.names(in: dir) == ["seg.ts.part"])
        var resumed = try PartFile.open(for: destination)
        let (named, size) = (resumed.named, resumed.size)
        #expect(named && size == 70_000)
        try await PartFileTests.write(content[70_000...], to: &resumed, chunks: [8_192])
        try await resumed.commit(to: destination, durable: false)
        resumed.close()
        let stored = try [UInt8](Data(contentsOf: URL(fileURLWithPath: destination)))
        let same = stored == content
        #expect(same)
        #expect(try Self.names(in: dir) == ["seg.ts"])
    }

    /// A `fresh` fetch does not look for a `.part` file; if one is there after all (the scheduler was wrong), the
    /// fetch writes its own file, never the other's bytes, and naming its own `.part` fails retryable.
    @Test(.enabled(if: PartFile.unnamedFilesWork, "/proc is not mounted"))
    func aFreshFetchDoesNotLookForAPartFile() async throws {
        let dir = try PartFileTests.folder(under: NSTemporaryDirectory())
        defer { try? FileManager.default.removeItem(at: dir) }
        let destination = dir.appendingPathComponent("seg.ts").path
        var earlier = try PartFile.open(for: destination)
        try earlier.name()
        try await PartFileTests.write(PartFileTests.bytes(70_000, seed: 1)[...], to: &earlier, chunks: [8_192])
        earlier.close()
        var fresh = try PartFile.open(for: destination, fresh: true)
        let (named, size) = (fresh.named, fresh.size)
        #expect(!named && size == 0, "a fresh fetch starts its own unnamed file")
        #expect(throws: TaskFailure.self) { try fresh.name() }
        fresh.close()
        var small = try PartFile.open(for: destination, fresh: true)
        let content = PartFileTests.bytes(3_000, seed: 2)
        try await PartFileTests.write(content[...], to: &small, chunks: [3_000])
        try await small.commit(to: destination, durable: false)
        small.close()
        let stored = try [UInt8](Data(contentsOf: URL(fileURLWithPath: destination)))
        let same = stored == content
        #expect(same)
        var probing = try PartFile.open(for: destination)
        let resumedSize = probing.size
        #expect(resumedSize == 70_000, "without fresh, the .part file is found and resumed")
        probing.close()
    }

    /// Once the kernel refused to name a file, this process writes named `.part` files (and they still work).
    @Test(.enabled(if: PartFile.unnamedFilesWork, "/proc is not mounted"))
    func aRefusedNameTurnsUnnamedFilesOff() async throws {
        let dir = try PartFileTests.folder(under: NSTemporaryDirectory())
        defer {
            try? FileManager.default.removeItem(at: dir)
            PartFile.namingRefused.store(false, ordering: .relaxed)
        }
        PartFile.namingRefused.store(true, ordering: .relaxed)
        let destination = dir.appendingPathComponent("seg.ts").path
        var part = try PartFile.open(for: destination)
        let named = part.named
        #expect(named, "a named .part file once naming was refused")
        #expect(try Self.names(in: dir) == ["seg.ts.part"])
        try await PartFileTests.write(PartFileTests.bytes(3_000)[...], to: &part, chunks: [1_000])
        try await part.commit(to: destination, durable: false)
        part.close()
        #expect(try Self.names(in: dir) == ["seg.ts"])
    }
}
