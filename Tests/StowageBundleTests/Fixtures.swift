import Crypto
import Foundation
import StowageLicensing
import StowageProtocol

@testable import StowageBundle

/// A small manifest and bundle folders in a temporary directory, shared by the bundle suites.
enum Fixtures {
    /// The exporting box's token of the fixtures' title (a token as boxes make them: 16 hex digits).
    static let token = "0123456789abcdef"

    /// A plan named as the planner names it: one rendition `video/index.m3u8`, one segment in its folder.
    static let plan = ResolvedPlan(
        masterPlaylist: "#EXTM3U\n",
        renditions: [
            PlannedRendition(
                kind: .video, sourceURL: "http://origin/film/v.m3u8", localPath: "video/index.m3u8", playlist: "")
        ],
        resources: [
            PlannedResource(
                kind: .segment, rendition: 0, url: "http://origin/film/0.ts", rangeOffset: nil, rangeLength: nil,
                localPath: "video/seg-000000.ts", container: .mpegTS, encrypted: false, duration: 4)
        ], bytesEstimate: 10)

    static func manifest(
        box: BoxIdentity, files: [BundleManifest.File], keys: WrappedKeys? = nil, plan: ResolvedPlan = plan
    ) -> BundleManifest {
        BundleManifest(
            box: box.publicKey, exportedAt: 1_700_000_000,
            title: .init(id: "film-1", token: token, sourceURL: "http://origin/film/master.m3u8"), plan: plan,
            files: files, terms: LicenseTerms(kind: .rental, requestedAt: 1_700_000_000, expiresAt: 1_800_000_000),
            usage: LicenseUsage(playCount: 2), keys: keys, exportID: "feedfacecafebeef")
    }

    static func hex(_ data: Data) -> String { Hex.encode(SHA256.hash(data: data)) }

    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bundle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Source files of a title (playlist + two segments, one in a subfolder) written to a temporary folder.
    static func titleFiles() throws -> (folder: URL, files: [(source: URL, path: String)]) {
        let folder = try temporaryFolder()
        let contents: [(String, Data)] = [
            ("master.m3u8", Data("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nvideo/index.m3u8\n".utf8)),
            ("video/index.m3u8", Data("#EXTM3U\n#EXTINF:1,\nseg-000000.ts\n".utf8)),
            ("video/seg-000000.ts", Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })),
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
