import Foundation
import Testing

@testable import StowageBundle

@Suite("Bundle limits")
struct BundleLimitsTests {
    func file(_ size: Int64, _ n: Int = 0) -> BundleManifest.File {
        .init(path: "video/seg-\(n).ts", size: size, sha256: "")
    }

    @Test func sizesAddUpWithoutTrappingAndPastTheCeilingAreRefused() throws {
        #expect(try BundleLimits.total([file(3), file(4, 1)]) == 7)
        // The reproduction: two sizes whose sum passes Int64.max.
        do {
            _ = try BundleLimits.total([file(.max), file(.max, 1)])
            Issue.record("an overflowing sum was accepted")
        } catch {
            #expect(error.code == .limit && error.file == "bundle.json" && error.message.contains("files[].size"))
        }
        #expect(throws: BundleProblem.self) { try BundleLimits.total([file(BundleLimits.totalBytes), file(1, 1)]) }
        #expect(try BundleLimits.total([file(BundleLimits.totalBytes)]) == BundleLimits.totalBytes)
        do {
            _ = try BundleLimits.total([file(-1)])
            Issue.record("a negative size was accepted")
        } catch {
            #expect(error.code == .malformed && error.message.contains("files[].size"))
        }
    }

    @Test func theManifestSizeLimit() {
        #expect(BundleLimits.manifestProblem(size: BundleLimits.manifestBytes) == nil)
        #expect(BundleLimits.manifestProblem(size: BundleLimits.manifestBytes + 1)?.code == .limit)
        #expect(BundleLimits.manifestProblem(size: 300 << 20)?.message.contains("64 MiB") == true)
    }
}
