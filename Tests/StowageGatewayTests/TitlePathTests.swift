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

    /// A title folder with `video/s.ts` (one link) and a folder outside it holding `x`.
    static func folders() throws -> (root: URL, outside: URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tp-\(UUID().uuidString)")
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("tp-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("video"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data("s".utf8).write(to: root.appendingPathComponent("video/s.ts"))
        try Data("x".utf8).write(to: outside.appendingPathComponent("x"))
        return (root, outside)
    }

    static func isFile(_ served: TitlePath.Served) -> Bool {
        if case .file = served { return true }
        return false
    }

    @Test func onlyRegularFilesWithOneLinkAndNoSymbolicLinkAreServed() throws {
        let (root, outside) = try Self.folders()
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: outside)
        }
        let fm = FileManager.default
        #expect(Self.isFile(TitlePath.served("video/s.ts", inRoot: root.path)))
        #expect(Self.isFile(TitlePath.served("video/s.ts", inRoot: root.path + "/")))
        #expect(TitlePath.served("../x", inRoot: root.path) == .refused)
        #expect(TitlePath.served("", inRoot: root.path) == .refused)
        #expect(TitlePath.served("video", inRoot: root.path) == .refused, "a folder")
        #expect(TitlePath.served("video/later.ts", inRoot: root.path) == .missing(path: root.path + "/video/later.ts"))
        #expect(TitlePath.served("nothing/later.ts", inRoot: root.path + "-none") != .refused, "no folder yet")
        // Symbolic links, out of the folder or inside it, to a file or to a folder: never followed.
        try fm.createSymbolicLink(at: root.appendingPathComponent("escape"), withDestinationURL: outside)
        try fm.createSymbolicLink(
            at: root.appendingPathComponent("alias"), withDestinationURL: root.appendingPathComponent("video"))
        try fm.createSymbolicLink(
            at: root.appendingPathComponent("video/t.ts"), withDestinationURL: root.appendingPathComponent("video/s.ts")
        )
        for name in ["escape/x", "escape/later.ts", "alias/s.ts", "video/t.ts"] {
            #expect(TitlePath.served(name, inRoot: root.path) == .refused, "\(name)")
        }
        // A hard link: the planted second name and the file's own name alike.
        try fm.linkItem(at: outside.appendingPathComponent("x"), to: root.appendingPathComponent("video/x.ts"))
        #expect(TitlePath.served("video/x.ts", inRoot: root.path) == .refused, "a hard link to a file outside")
        try fm.linkItem(at: root.appendingPathComponent("video/s.ts"), to: outside.appendingPathComponent("s-copy"))
        #expect(TitlePath.served("video/s.ts", inRoot: root.path) == .refused, "a file with a second name")
        try fm.removeItem(at: outside.appendingPathComponent("s-copy"))
        #expect(Self.isFile(TitlePath.served("video/s.ts", inRoot: root.path)), "one link again")
        // Not a regular file.
        #expect(mkfifo(root.appendingPathComponent("video/pipe.ts").path, 0o600) == 0)
        #expect(TitlePath.served("video/pipe.ts", inRoot: root.path) == .refused, "a FIFO")
    }

    @Test func aTitleFolderThatIsALinkIsRefusedAtOnceAndServedAgainAtOnce() throws {
        let (root, outside) = try Self.folders()
        let aside = root.deletingLastPathComponent().appendingPathComponent(root.lastPathComponent + "-aside")
        defer {
            for folder in [root, outside, aside] { try? FileManager.default.removeItem(at: folder) }
        }
        let fm = FileManager.default
        #expect(Self.isFile(TitlePath.served("video/s.ts", inRoot: root.path)))
        // Swapped for a link to a folder with the same names: refused at once, a name not there yet too.
        try fm.moveItem(at: root, to: aside)
        try fm.createDirectory(at: outside.appendingPathComponent("video"), withIntermediateDirectories: true)
        try Data("o".utf8).write(to: outside.appendingPathComponent("video/s.ts"))
        try fm.createSymbolicLink(at: root, withDestinationURL: outside)
        #expect(TitlePath.served("video/s.ts", inRoot: root.path) == .refused)
        #expect(TitlePath.served("video/later.ts", inRoot: root.path) == .refused)
        // The reverse: the real folder back in place is served at once, from itself.
        try fm.removeItem(at: root)
        try fm.moveItem(at: aside, to: root)
        guard case .file(let path, let stat) = TitlePath.served("video/s.ts", inRoot: root.path) else {
            Issue.record("the real folder is served again")
            return
        }
        #expect(path == root.path + "/video/s.ts" && stat.size == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("s".utf8))
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
