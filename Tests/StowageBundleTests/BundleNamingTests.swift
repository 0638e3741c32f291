import Foundation
import StowageProtocol
import Testing

@testable import StowageBundle

@Suite("Bundle plan naming")
struct BundleNamingTests {
    let box = BoxIdentity()
    let files: [BundleManifest.File] = ["master.m3u8", "video/index.m3u8", "video/seg-000000.ts"].map {
        .init(path: $0, size: 1, sha256: "")
    }

    func problem(_ change: (inout ResolvedPlan) -> Void, files extra: [String] = []) -> BundleProblem? {
        var plan = Fixtures.plan
        change(&plan)
        let listed = files + extra.map { BundleManifest.File(path: $0, size: 1, sha256: "") }
        return BundleNaming.problem(Fixtures.manifest(box: box, files: listed, plan: plan))
    }

    @Test func thePlannersNamesPass() {
        #expect(problem { _ in } == nil)
        // DASH: folders p<period>/<label>, the manifest at the top.
        let dash = ResolvedPlan(
            masterPlaylist: "<MPD/>",
            renditions: [
                PlannedRendition(kind: .video, sourceURL: "http://o/m.mpd", localPath: "p0/video-0-1-en", playlist: "")
            ],
            resources: ["init.mp4", "seg-00001.m4s"].map {
                PlannedResource(
                    kind: .segment, rendition: 0, url: "http://o/\($0)", rangeOffset: nil, rangeLength: nil,
                    localPath: "p0/video-0-1-en/\($0)", container: .fmp4, encrypted: false, duration: 2)
            } + [
                PlannedResource(
                    kind: .poster, rendition: 0, url: "http://o/p.jpg", rangeOffset: nil, rangeLength: nil,
                    localPath: "poster.jpg", container: .other, encrypted: false, duration: 0)
            ], bytesEstimate: nil, manifestName: "manifest.mpd")
        let listed = ["manifest.mpd", "p0/video-0-1-en/init.mp4", "p0/video-0-1-en/seg-00001.m4s", "poster.jpg"]
        let manifest = Fixtures.manifest(
            box: box, files: listed.map { .init(path: $0, size: 1, sha256: "") }, plan: dash)
        #expect(BundleNaming.problem(manifest) == nil)
    }

    @Test func aPlaylistPathOutsideTheTitleOrInAnotherTitleIsRefused() {
        for path in [
            "../../../../../../../../tmp/x.txt", "../0123456789abcdef/video/index.m3u8", "/tmp/x/index.m3u8",
            "video/../../x/index.m3u8", "Video/index.m3u8", "video/playlist.m3u8", "video/sub/index.m3u8",
        ] {
            let found = problem { $0.renditions[0].localPath = path }
            #expect(found?.code == .path && found?.message.contains("plan.renditions[0].localPath") == true, "\(path)")
        }
    }

    @Test func aFileOutsideItsRenditionsFolderIsRefused() {
        for path in ["../x.ts", "audio/seg-000000.ts", "video/../seg.ts", "video/.hidden.ts", "video/a/b.ts"] {
            let found = problem({ $0.resources[0].localPath = path }, files: [])
            #expect(found?.code == .path, "\(path)")
        }
        #expect(problem { $0.resources[0].rendition = 5 }?.message.contains("rendition") == true)
        #expect(problem { $0.manifestName = "../x.mpd" }?.code == .path)
        #expect(problem { $0.resources[0].kind = .poster }?.code == .path, "a poster is poster.<ext>")
    }

    @Test func aListedFileThePlanDoesNotNameIsRefused() {
        let found = problem({ _ in }, files: ["video/other.ts"])
        #expect(found?.code == .path && found?.message.contains("files[].path") == true)
    }
}
