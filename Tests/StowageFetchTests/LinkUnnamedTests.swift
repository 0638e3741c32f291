import CSystemShims
import Foundation
import Testing

/// Both ways an unnamed file gets its name: linkat(AT_EMPTY_PATH) where the process may, and linkat through
/// /proc/self/fd for a worker without the privilege (the way stowage_link_unnamed falls back to).
@Suite("Naming an unnamed file")
struct LinkUnnamedTests {
    typealias Link = (Int32, UnsafePointer<CChar>) -> Int32

    /// Writes `text` into an unnamed file in `dir` and names it `name` with `link`; returns link's result and errno.
    static func writeAndLink(_ text: String, in dir: URL, as name: String, with link: Link) throws -> (Int32, Int32) {
        let fd = stowage_open_unnamed(dir.path, 0o644)
        try #require(fd >= 0, "O_TMPFILE in \(dir.path): errno \(errno)")
        defer { close(fd) }
        let bytes = Array(text.utf8)
        #expect(write(fd, bytes, bytes.count) == bytes.count)
        let result = dir.appendingPathComponent(name).path.withCString { link(fd, $0) }
        return (result, errno)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd"), "/proc is not mounted"))
    func eitherWayNamesTheWholeFileAndNeverReplacesAName() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let ways: [(String, Link)] = [("chosen", stowage_link_unnamed), ("/proc", stowage_link_unnamed_via_proc)]
        for (way, link) in ways {
            let name = "seg-\(way == "/proc" ? "proc" : "chosen").ts"
            let (named, _) = try Self.writeAndLink("whole \(way)", in: dir, as: name, with: link)
            #expect(named == 0, "\(way): errno \(errno)")
            let stored = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            #expect(stored == "whole \(way)", "\(way)")
            // A name already taken is refused (EEXIST), and the file under it is left as it was.
            let (again, error) = try Self.writeAndLink("second", in: dir, as: name, with: link)
            #expect(again == -1 && error == EEXIST, "\(way): \(again), errno \(error)")
            #expect(try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8) == "whole \(way)")
            // A folder that went: ENOENT, as the caller's error text expects.
            let (gone, goneError) = try Self.writeAndLink("x", in: dir, as: "no-such-folder/seg.ts", with: link)
            #expect(gone == -1 && goneError == ENOENT, "\(way): \(gone), errno \(goneError)")
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["seg-chosen.ts", "seg-proc.ts"])
    }
}
