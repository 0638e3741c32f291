import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Library metadata: poster fetched with the title, user and source bookmarks.
@Suite("Library", .serialized)
struct LibraryTests {
    @Test func posterAndBookmarks() throws {
        let h = try Harness(name: "lib")
        try h.makeSample(seconds: 8)
        // A packager's chapter marks: PROGRAM-DATE-TIME and a DATERANGE 4 s in, on the 360p rendition.
        _ = try TestMedia.sh(
            """
            ffmpeg -v error -y -f lavfi -i testsrc2=size=320x180:rate=1 -frames:v 1 poster.png
            sed -i 's/^#EXT-X-PLAYLIST-TYPE:VOD/#EXT-X-PLAYLIST-TYPE:VOD\\n\
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T10:00:00.000Z\\n\
            #EXT-X-DATERANGE:ID="ch2",START-DATE="2026-01-01T10:00:04.000Z",X-TITLE="Chapter 2"/' v360p/index.m3u8
            """, in: h.media)
        try h.startOrigin()
        try h.startPipeline()
        let (code, out) = try h.stowctl([
            "submit", h.originURL + "master.m3u8", "--poster", h.originURL + "poster.png", "--wait",
        ])
        #expect(code == 0)
        let token = try #require(out.split(separator: "\n").last.map(String.init))
        let poster = h.home.appendingPathComponent("titles/\(token)/poster.png")
        #expect(try Data(contentsOf: poster) == Data(contentsOf: h.media.appendingPathComponent("poster.png")))
        func marks(_ args: [String]) throws -> (Int32, [Bookmark]) {
            let (c, o) = try h.stowctl(["bookmark"] + args + ["--json"])
            return (c, c == 0 ? try JSONDecoder().decode([Bookmark].self, from: Data(o.utf8)) : [])
        }
        let (_, initial) = try marks(["list", token])
        #expect(initial == [Bookmark(position: 4, label: "Chapter 2", kind: .index)])
        _ = try marks(["add", token, "0:02", "--label", "first"])
        let (_, replaced) = try marks(["add", token, "2", "--label", "second"])
        #expect(replaced.filter { $0.kind == .user } == [Bookmark(position: 2, label: "second", kind: .user)])
        let (refused, _) = try h.stowctl(["bookmark", "remove", token, "4"])
        #expect(refused == 1, "a source bookmark cannot be removed")
        let (_, afterRemove) = try marks(["remove", token, "2"])
        #expect(afterRemove == [Bookmark(position: 4, label: "Chapter 2", kind: .index)])
    }
}
