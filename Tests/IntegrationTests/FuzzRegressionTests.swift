import Foundation
import Testing

/// Every input the fuzzers ever crashed on (`Tests/Fuzz/Regressions`, filled by `Benchmarks/fuzz.sh`) and
/// the seed corpus go through the fuzz targets' own entry points on every test run.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    @Test(arguments: ["playlist", "frames"])
    func replayWithoutACrash(_ target: String) throws {
        let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz")
        let p = Process()
        p.executableURL = Harness.binDirectory().appendingPathComponent("stowage-fuzz-\(target)")
        p.arguments = [fuzz.appendingPathComponent("Corpus/\(target)").path, fuzz.appendingPathComponent("Regressions/\(target)").path]
        let (status, out) = try runCapturingOutput(p)
        #expect(status == 0, "\(out)")
        #expect(out.contains("without a crash"))
    }
}
