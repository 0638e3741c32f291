import Foundation
import StowageTestSupport
import Testing

/// Every input the fuzzers ever crashed on (`Tests/Fuzz/Regressions`, filled by `Benchmarks/fuzz.sh`) and
/// the seed corpus go through the fuzz targets' own entry points on every test run. The targets check
/// properties, not only the absence of a crash (offline playlists parse back to their source's segments,
/// decoded frames are the frames given and bodies survive re-encoding): a violation traps, and the replay
/// must then fail. The replay must also have run every file: it prints how many, compared here.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// The files the replay reads in `directory` (what FuzzReplay lists: everything but dot files).
    static func inputs(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }
    }

    static func replay(_ target: String, _ arguments: [String]) throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let p = Process()
        p.executableURL = Harness.binDirectory().appendingPathComponent("stowage-fuzz-\(target)")
        guard FileManager.default.isExecutableFile(atPath: p.executableURL!.path) else {
            throw HarnessError("\(p.executableURL!.path) is not built (swift build --build-tests builds it)")
        }
        p.arguments = arguments
        return try runCapturingStreams(p)
    }

    @Test(arguments: ["playlist", "frames", "mpd", "documents"])
    func replayWithoutACrash(_ target: String) throws {
        let directories = ["Corpus/\(target)", "Regressions/\(target)"].map { Self.fuzz.appendingPathComponent($0) }
        let expected = try directories.map { try Self.inputs($0).count }.reduce(0, +)
        #expect(try Self.inputs(directories[0]).count >= 5, "the seed corpus of \(target) is there")
        let run = try Self.replay(target, directories.map(\.path))
        #expect(run.status == 0, "stdout: \(run.stdout)\nstderr: \(run.stderr)")
        #expect(
            run.stdout.contains("replayed \(expected) input(s) without a crash"),
            "\(expected) files in \(directories.map(\.path)); the replay said: \(run.stdout) \(run.stderr)")
    }

    /// The count is the replay's own: one file named twice (directly and through its directory) counts twice,
    /// and a missing input fails instead of being skipped.
    @Test func replayCountsWhatItRan() throws {
        let corpus = Self.fuzz.appendingPathComponent("Corpus/playlist")
        let files = try Self.inputs(corpus)
        let one = corpus.appendingPathComponent(try #require(files.first)).path
        let run = try Self.replay("playlist", [corpus.path, one])
        #expect(run.status == 0 && run.stdout.contains("replayed \(files.count + 1) input(s)"), "\(run.stdout)")
        let missing = try Self.replay("playlist", [corpus.appendingPathComponent("no-such-input").path])
        #expect(missing.status == 2 && missing.stderr.contains("no such file"), "\(missing)")
    }
}
