import Foundation
import StowageLicensing
import Testing

@testable import StowageBundle

@Suite("Bundle manifest")
struct BundleManifestTests {
    let box = BoxIdentity()

    @Test func theSameManifestAlwaysEncodesToTheSameBytes() throws {
        let manifest = Fixtures.manifest(
            box: box, files: [.init(path: "master.m3u8", size: 3, sha256: Fixtures.hex(Data("abc".utf8)))])
        let bytes = try manifest.encoded()
        #expect(try BundleManifest.decode(bytes) == manifest)
        #expect(try BundleManifest.decode(bytes).encoded() == bytes, "re-encoding changes no byte")
        // Terms as exported: the absolute expiry and the plays already made travel.
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("\"expiresAt\" : 1800000000") && text.contains("\"playCount\" : 2"))
    }

    @Test func aNewerFormatIsRefusedRatherThanGuessedAt() throws {
        var manifest = Fixtures.manifest(box: box, files: [])
        manifest.format = BundleManifest.currentFormat + 1
        let bytes = try manifest.encoded()
        do {
            _ = try BundleManifest.decode(bytes)
            Issue.record("a newer format was read")
        } catch {
            #expect(error.code == .malformed && error.file == "bundle.json" && error.message.contains("update"))
        }
        #expect(throws: BundleProblem.self) { try BundleManifest.decode(Data("{}".utf8)) }
    }

    @Test func aSymbolicLinkInTheBundleCountsAsExtra() throws {
        let title = try Fixtures.titleFiles()
        let bundle = BundleFolder(root: try Fixtures.temporaryFolder().appendingPathComponent("out"))
        let manifest = try bundle.write(
            files: title.files, identity: box, makeManifest: { Fixtures.manifest(box: box, files: $0) })
        try FileManager.default.createSymbolicLink(
            atPath: bundle.root.appendingPathComponent("video/link.ts").path, withDestinationPath: "/etc/passwd")
        let problem = BundleCheck.listing(manifest, found: try bundle.scan())
        #expect(problem?.code == .extra && problem?.file == "video/link.ts")
    }

    @Test func formatOneIsRefusedByNameAndAnExportIDIsRequired() throws {
        var manifest = Fixtures.manifest(box: box, files: [])
        manifest.format = 1
        manifest.exportID = nil
        let old = try manifest.encoded()
        do {
            _ = try BundleManifest.decode(old)
            Issue.record("a format 1 bundle was read")
        } catch {
            #expect(error.code == .malformed && error.message.contains("format 1"))
            #expect(error.message.contains("export the title again"))
        }
        manifest.format = BundleManifest.currentFormat
        #expect(throws: BundleProblem.self) { try BundleManifest.decode(try manifest.encoded()) }
        manifest.exportID = "feedfacecafebeef"
        manifest.title.token = "../1001"
        #expect(throws: BundleProblem.self) { try BundleManifest.decode(try manifest.encoded()) }
    }
}
