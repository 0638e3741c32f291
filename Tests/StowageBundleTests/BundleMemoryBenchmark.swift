import Foundation
import Testing

@testable import StowageBundle

/// The issue's benchmark line: a 1 GiB title exported and imported with memory bounded by one chunk. Opt-in
/// (`STOWAGE_BENCH_BUNDLE=1`), as it writes 3 GiB to the temporary folder; prints the rate and the process's peak
/// RSS (VmHWM) — run it alone so the peak is this test's.
@Suite("Bundle memory benchmark")
struct BundleMemoryBenchmark {
    static let enabled = ProcessInfo.processInfo.environment["STOWAGE_BENCH_BUNDLE"] != nil

    static func peakRSSKiB() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test(.enabled(if: enabled)) func aGibibyteTitleTravelsInBoundedMemory() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("seg.ts")
        FileManager.default.createFile(atPath: source.path, contents: nil)
        let handle = try FileHandle(forWritingTo: source)
        let chunk = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        for _ in 0..<1024 { try handle.write(contentsOf: chunk) }
        try handle.close()
        let before = Self.peakRSSKiB()
        let box = BoxIdentity()
        let bundle = BundleFolder(root: folder.appendingPathComponent("bundle"))
        var start = Date()
        _ = try bundle.write(
            files: [(source, "video/seg-000000.ts")], identity: box,
            makeManifest: { Fixtures.manifest(box: box, files: $0) })
        let exportSeconds = Date().timeIntervalSince(start)
        start = Date()
        _ = try bundle.stage(
            into: folder.appendingPathComponent("staging"), trusted: [box.publicKey], trustAny: false)
        let importSeconds = Date().timeIntervalSince(start)
        let after = Self.peakRSSKiB()
        print(
            "bundle benchmark: 1 GiB export \(String(format: "%.1f", 1024 / exportSeconds)) MiB/s, import "
                + "\(String(format: "%.1f", 1024 / importSeconds)) MiB/s, peak RSS \(after / 1024) MiB "
                + "(before \(before / 1024) MiB)")
        #expect(after - before < 100 * 1024, "peak RSS grew by \((after - before) / 1024) MiB")
    }
}
