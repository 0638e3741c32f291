import Foundation
import Testing

@testable import StowageBundle

@Suite("Bundle import check")
struct BundleCheckTests {
    let box = BoxIdentity()
    let files = [
        BundleManifest.File(path: "master.m3u8", size: 3, sha256: Fixtures.hex(Data("abc".utf8))),
        BundleManifest.File(path: "video/seg-000000.ts", size: 2, sha256: Fixtures.hex(Data("xy".utf8))),
    ]

    var found: [BundleCheck.Found] {
        [
            .init(path: "master.m3u8", size: 3, sha256: Fixtures.hex(Data("abc".utf8))),
            .init(path: "video/seg-000000.ts", size: 2, sha256: Fixtures.hex(Data("xy".utf8))),
        ]
    }

    @Test func everyFileAsListedPasses() {
        #expect(BundleCheck.check(Fixtures.manifest(box: box, files: files), found: found) == nil)
    }

    @Test func theFirstProblemNamesTheFile() {
        let manifest = Fixtures.manifest(box: box, files: files)
        #expect(BundleCheck.check(manifest, found: [found[0]])?.code == .missing)
        #expect(BundleCheck.check(manifest, found: [found[0]])?.file == "video/seg-000000.ts")
        let extra = BundleCheck.check(manifest, found: found + [.init(path: "v0/zz.ts", size: 1, sha256: "00")])
        #expect(extra == BundleProblem(.extra, file: "v0/zz.ts", extra?.message ?? ""))
        var resized = found
        resized[1].size = 3
        #expect(BundleCheck.check(manifest, found: resized)?.code == .size)
        var flipped = found
        flipped[1].sha256 = Fixtures.hex(Data("xz".utf8))
        let hash = BundleCheck.check(manifest, found: flipped)
        #expect(hash?.code == .hash && hash?.file == "video/seg-000000.ts")
        #expect(hash?.description.hasPrefix("video/seg-000000.ts: has SHA-256") == true)
    }

    @Test func aManifestNamingAPathOutsideTheBundleIsRefused() {
        for path in ["../etc/passwd", "/etc/passwd", "a//b", "./a", "bundle.json", "a/../../b", ""] {
            let manifest = Fixtures.manifest(box: box, files: [.init(path: path, size: 0, sha256: "")])
            #expect(BundleCheck.check(manifest, found: [])?.code == .malformed, "\(path)")
        }
        let twice = Fixtures.manifest(box: box, files: [files[0], files[0]])
        #expect(BundleCheck.listing(twice, found: found)?.code == .malformed)
    }
}
