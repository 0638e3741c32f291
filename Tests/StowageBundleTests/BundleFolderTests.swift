import Foundation
import Testing

@testable import StowageBundle

/// Export then import through real folders: what `stowctl export` and `import` do around the store.
@Suite("Bundle folders")
struct BundleFolderTests {
    let exporter = BoxIdentity()

    func exported() throws -> (bundle: BundleFolder, manifest: BundleManifest) {
        let title = try Fixtures.titleFiles()
        let bundle = BundleFolder(root: try Fixtures.temporaryFolder().appendingPathComponent("out"))
        var written = 0
        let manifest = try bundle.write(
            files: title.files, identity: exporter, makeManifest: { Fixtures.manifest(box: exporter, files: $0) },
            progress: { written += $0 })
        #expect(written == manifest.files.reduce(0) { $0 + Int($1.size) })
        return (bundle, manifest)
    }

    func stage(_ bundle: BundleFolder) throws -> (staging: URL, result: Result<BundleManifest, BundleProblem>) {
        let staging = try Fixtures.temporaryFolder().appendingPathComponent(".import-x")
        do {
            return (staging, .success(try bundle.stage(into: staging, trusted: [exporter.publicKey], trustAny: false)))
        } catch {
            return (staging, .failure(error))
        }
    }

    @Test func anExportedBundleImportsByteForByte() throws {
        let (bundle, manifest) = try exported()
        #expect(manifest.files.map(\.path) == ["master.m3u8", "video/index.m3u8", "video/seg-000000.ts"])
        var total: Int64 = -1
        let first = try Fixtures.temporaryFolder().appendingPathComponent(".import-t")
        _ = try bundle.stage(into: first, trusted: [exporter.publicKey], trustAny: false, total: { total = $0 })
        #expect(total == manifest.files.reduce(0) { $0 + $1.size }, "the total is told once the signature verified")
        let (staging, result) = try stage(bundle)
        #expect(try result.get() == manifest)
        for file in manifest.files {
            #expect(
                FileManager.default.contents(atPath: staging.appendingPathComponent(file.path).path)
                    == FileManager.default.contents(atPath: bundle.root.appendingPathComponent(file.path).path))
        }
    }

    func refused(_ bundle: BundleFolder) throws -> BundleProblem? {
        let (staging, result) = try stage(bundle)
        #expect(!FileManager.default.fileExists(atPath: staging.path), "nothing of a refused import stays")
        if case .failure(let problem) = result { return problem }
        return nil
    }

    @Test func aFlippedByteIsRefusedNamingTheFileAndNothingStays() throws {
        let (bundle, _) = try exported()
        let url = bundle.root.appendingPathComponent("video/seg-000000.ts")
        var data = try Data(contentsOf: url)
        data[2_000_000] ^= 0x01
        try data.write(to: url)
        let problem = try refused(bundle)
        #expect(problem?.code == .hash && problem?.file == "video/seg-000000.ts")
    }

    @Test func aRemovedOrAddedFileIsRefusedNamingIt() throws {
        let (bundle, _) = try exported()
        try FileManager.default.removeItem(at: bundle.root.appendingPathComponent("video/index.m3u8"))
        #expect(
            try refused(bundle) == BundleProblem(.missing, file: "video/index.m3u8", try refused(bundle)?.message ?? "")
        )
        let (other, _) = try exported()
        try Data("x".utf8).write(to: other.root.appendingPathComponent("video/evil.ts"))
        #expect(try refused(other)?.file == "video/evil.ts")
    }

    @Test func aTamperedManifestIsRefused() throws {
        let (bundle, _) = try exported()
        let url = bundle.root.appendingPathComponent("bundle.json")
        let text = try String(contentsOf: url, encoding: .utf8).replacingOccurrences(
            of: Fixtures.token, with: "0123456789abcdee")
        try Data(text.utf8).write(to: url)
        let problem = try refused(bundle)
        #expect(problem?.code == .signature && problem?.file == "bundle.json")
    }

    @Test func exportRefusesAFolderThatIsNotEmpty() throws {
        let (bundle, _) = try exported()
        let title = try Fixtures.titleFiles()
        #expect(throws: BundleProblem.self) {
            try bundle.write(
                files: title.files, identity: exporter, makeManifest: { Fixtures.manifest(box: exporter, files: $0) })
        }
    }

    @Test func anOversizedManifestIsRefusedBeforeItIsRead() throws {
        let (bundle, _) = try exported()
        // A sparse file past the limit: refused on its size, so the check is quick and reads nothing of it.
        let url = bundle.root.appendingPathComponent("bundle.json")
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(BundleLimits.manifestBytes + 1))
        try handle.close()
        let started = ContinuousClock.now
        let problem = try refused(bundle)
        #expect(
            problem?.code == .limit && problem?.file == "bundle.json" && problem?.message.contains("64 MiB") == true)
        #expect(ContinuousClock.now - started < .seconds(1), "refused on its size, not read")
    }

    @Test func aPlanPathThisBoxWouldNotNameIsRefusedBeforeAnyByteIsCopied() throws {
        let title = try Fixtures.titleFiles()
        var plan = Fixtures.plan
        plan.renditions[0].localPath = "../../../../tmp/x.txt"
        let bundle = BundleFolder(root: try Fixtures.temporaryFolder().appendingPathComponent("out"))
        _ = try bundle.write(
            files: title.files, identity: exporter,
            makeManifest: { Fixtures.manifest(box: exporter, files: $0, plan: plan) })
        let problem = try refused(bundle)
        #expect(problem?.code == .path && problem?.message.contains("plan.renditions[0].localPath") == true)
    }
}
