import Foundation
import StowageProtocol
import Testing

@testable import StowagePlayback

@Suite("Path safety")
struct TitlePathTests {
    @Test(arguments: [
        "../etc/passwd", "video/../../x", "..", "./a", "a/./b", ".hidden", "video/.x.ts", "a%2F..%2Fb",
        "..%2f..%2fetc", "a%5Cb", "a\\b", "a%00b", "%2e%2e/x", "video/%2E%2E/%2E%2E/x", "a%zz",
    ])
    func tricksAreRefused(_ path: String) {
        #expect(TitlePath.relative(rawPath: path) == nil, "\(path)")
    }

    @Test func plainPathsPass() {
        #expect(TitlePath.relative(rawPath: "video/0001.ts") == "video/0001.ts")
        #expect(TitlePath.relative(rawPath: "/video//0001.ts?x=1") == "video/0001.ts")
        #expect(TitlePath.relative(rawPath: "my%20file.ts") == "my file.ts")
        #expect(TitlePath.relative(rawPath: "") == "")
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
    }
}
