import Foundation
import StowageProtocol
import Testing

@testable import StowagePlayback

@Suite("Path safety")
struct TitlePathTests {
    @Test(arguments: [
        "../etc/passwd", "video/../../x", "..", "./a", "a/./b", ".hidden", "video/.x.ts", "a%2F..%2Fb",
        "..%2f..%2fetc", "a%5Cb", "a\\b", "a%00b", "%2e%2e/x", "video/%2E%2E/%2E%2E/x", "a%zz",
        "a%2fb", "a%5cb", "%00", "a%2", "video%2F0001.ts",
    ])
    func tricksAreRefused(_ path: String) {
        #expect(TitlePath.relative(rawPath: path) == nil, "\(path)")
    }

    @Test func plainPathsPass() {
        #expect(TitlePath.relative(rawPath: "video/0001.ts") == "video/0001.ts")
        #expect(TitlePath.relative(rawPath: "/video//0001.ts?x=1") == "video/0001.ts")
        #expect(TitlePath.relative(rawPath: "my%20file.ts") == "my file.ts")
        #expect(TitlePath.relative(rawPath: "") == "")
        #expect(TitlePath.relative(rawPath: "/a/") == "a")
        #expect(TitlePath.relative(rawPath: "a//b///c.ts") == "a/b/c.ts")
        #expect(TitlePath.relative(rawPath: "a%252Fb") == "a%2Fb", "decoded once: a literal %2F in a name")
        #expect(TitlePath.relative(rawPath: "%E2%82%AC.ts?%2F") == "€.ts", "the query is not looked at")
    }

    @Test func resolvedFilesStayInside() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tp-\(UUID().uuidString)")
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("tp-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: outside)
        }
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("escape"), withDestinationURL: outside)
        #expect(TitlePath.resolve("master.m3u8", in: root) != nil)
        #expect(TitlePath.resolve("escape/x", in: root) == nil, "a symbolic link out of the folder is refused")
        #expect(TitlePath.resolve("../x", in: root) == nil)
        #expect(TitlePath.resolve("", in: root) == nil)
        // The file behind the link exists: refused all the same.
        try Data("x".utf8).write(to: outside.appendingPathComponent("x"))
        #expect(TitlePath.resolve("escape/x", in: root) == nil, "an existing file out of the folder is refused")
        // A link that stays inside is followed; a root that is itself a link is its target.
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("video"), withIntermediateDirectories: true)
        try Data("s".utf8).write(to: root.appendingPathComponent("video/s.ts"))
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("alias"), withDestinationURL: root.appendingPathComponent("video"))
        #expect(TitlePath.resolve("alias/s.ts", in: root)?.lastPathComponent == "s.ts")
        #expect(TitlePath.resolve("video/s.ts", in: root)?.path.hasSuffix("/video/s.ts") == true)
        let linkedRoot = outside.appendingPathComponent("root-link")
        try FileManager.default.createSymbolicLink(at: linkedRoot, withDestinationURL: root)
        #expect(TitlePath.resolve("video/s.ts", in: linkedRoot) != nil)
        #expect(TitlePath.resolve("escape/x", in: linkedRoot) == nil)
    }

    @Test func fileNamesAndExtensions() {
        #expect(ContentTypes.fileExtension("video/Seg1.TS") == "ts")
        #expect(ContentTypes.fileExtension("a.b/noext") == "")
        #expect(ContentTypes.fileName("a/b/c.m4s") == "c.m4s")
        #expect(ContentTypes.forPath("v/x.M4S") == "video/mp4")
        #expect(ContentTypes.isPlaylist("v/index.M3U8") && ContentTypes.isPlaylist("manifest.mpd"))
        #expect(!ContentTypes.isPlaylist("m3u8/seg.ts"))
    }
}
