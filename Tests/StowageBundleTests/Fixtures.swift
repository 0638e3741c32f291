import Crypto
import Foundation
import StowageLicensing
import StowageProtocol

@testable import StowageBundle

/// A small manifest and bundle folders in a temporary directory, shared by the bundle suites.
enum Fixtures {
    static let plan = ResolvedPlan(
        masterPlaylist: "#EXTM3U\n", renditions: [], resources: [], bytesEstimate: 10)

    static func manifest(box: BoxIdentity, files: [BundleManifest.File], keys: WrappedKeys? = nil) -> BundleManifest {
        BundleManifest(
            box: box.publicKey, exportedAt: 1_700_000_000,
            title: .init(id: "film-1", token: "tok1", sourceURL: "http://origin/film/master.m3u8"), plan: plan,
            files: files, terms: LicenseTerms(kind: .rental, requestedAt: 1_700_000_000, expiresAt: 1_800_000_000),
            usage: LicenseUsage(playCount: 2), keys: keys)
    }

    static func hex(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bundle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Source files of a title (playlist + two segments, one in a subfolder) written to a temporary folder.
    static func titleFiles() throws -> (folder: URL, files: [(source: URL, path: String)]) {
        let folder = try temporaryFolder()
        let contents: [(String, Data)] = [
            ("master.m3u8", Data("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv0/index.m3u8\n".utf8)),
            ("v0/index.m3u8", Data("#EXTM3U\n#EXTINF:1,\nseg0.ts\n".utf8)),
            ("v0/seg0.ts", Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })),
        ]
        var files: [(source: URL, path: String)] = []
        for (path, data) in contents {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
            files.append((url, path))
        }
        return (folder, files)
    }
}
