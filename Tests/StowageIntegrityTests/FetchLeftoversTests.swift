import Foundation
import StowageIntegrity
import Testing

@Suite("Leftovers of fetches")
struct FetchLeftoversTests {
    /// Partial files, resume records and cut-short replacements go, at any depth; the title's files stay.
    @Test func onlyLeftoversAreRemovedAtAnyDepth() throws {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("leftovers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let kept = ["index.m3u8", "video/index.m3u8", "video/seg-000001.ts", "p1/video-0-0/seg-00001.m4s", "partly.ts"]
        let gone = [
            "video/seg-000002.ts.part", "video/seg-000002.ts.part.meta", "video/seg-000003.ts.77-1234.new",
            "p1/video-0-0/init.mp4.part",
        ]
        for path in kept + gone {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(path.utf8).write(to: url)
        }
        #expect(FetchLeftovers.remove(under: root.path) == gone.count)
        let left = try FileManager.default.subpathsOfDirectory(atPath: root.path).filter {
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: root.appendingPathComponent($0).path, isDirectory: &folder)
                && !folder.boolValue
        }
        #expect(left.sorted() == kept.sorted())
        #expect(FetchLeftovers.remove(under: root.appendingPathComponent("missing").path) == 0)
    }
}
