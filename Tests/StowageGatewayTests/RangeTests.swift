import Foundation
import Hummingbird
import Testing

@testable import StowageGateway
@testable import StowagePlayback

@Suite("Ranges and content types")
struct RangeTests {
    @Test func ranges() {
        #expect(RangeRequest.parse(nil, size: 100) == .whole)
        #expect(RangeRequest.parse("bytes=0-9", size: 100) == .partial(0...9))
        #expect(RangeRequest.parse("bytes=90-", size: 100) == .partial(90...99))
        #expect(RangeRequest.parse("bytes=-10", size: 100) == .partial(90...99))
        #expect(RangeRequest.parse("bytes=-500", size: 100) == .partial(0...99))
        #expect(RangeRequest.parse("bytes=50-500", size: 100) == .partial(50...99))
        #expect(RangeRequest.parse("bytes=100-", size: 100) == .unsatisfiable)
        #expect(RangeRequest.parse("bytes=9-3", size: 100) == .unsatisfiable)
        #expect(RangeRequest.parse("bytes=0-1,5-6", size: 100) == .unsatisfiable)
        #expect(RangeRequest.parse("items=0-1", size: 100) == .unsatisfiable)
        #expect(RangeRequest.parse("bytes=a-b", size: 100) == .unsatisfiable)
        #expect(RangeRequest.parse("bytes=0-0", size: 0) == .unsatisfiable)
    }

    /// The head both the router's answer and the hot path's are built with.
    @Test func aFileHeadIsWholeOneRangeOrUnsatisfiable() {
        let modified = Date(timeIntervalSince1970: 1_700_000_000)
        let whole = FileHead("v/1.ts", size: 100, modified: modified, dynamic: false, request: [:], sendfile: "/t/1.ts")
        #expect(whole.status == .ok && whole.bytes == 0..<100 && whole.fields[.contentLength] == "100")
        #expect(whole.fields[.contentRange] == nil && whole.fields[.contentType] == "video/mp2t")
        #expect(
            whole.fields[FileSlice.header] == FileSlice(path: "/t/1.ts", offset: 0, length: 100, size: 100).fieldValue)
        let part = FileHead("v/1.ts", size: 100, modified: modified, dynamic: false, request: [.range: "bytes=10-19"])
        #expect(part.status == .partialContent && part.bytes == 10..<20)
        #expect(part.fields[.contentRange] == "bytes 10-19/100" && part.fields[.contentLength] == "10")
        #expect(part.fields[FileSlice.header] == nil, "no slice unless asked for")
        let past = FileHead(
            "v/1.ts", size: 100, modified: modified, dynamic: false, request: [.range: "bytes=100-"],
            sendfile: "/t/1.ts")
        #expect(past.status == .rangeNotSatisfiable && past.bytes.isEmpty)
        #expect(past.fields[.contentRange] == "bytes */100" && past.fields[.contentLength] == "0")
        #expect(past.fields[FileSlice.header] == nil, "nothing to send")
        let playlist = FileHead("a.m3u8", size: 50, modified: modified, dynamic: true, request: [.range: "bytes=0-9"])
        #expect(playlist.status == .ok && playlist.fields[.cacheControl] == "no-store", "rewritten: always whole")
    }

    @Test func contentTypes() {
        #expect(ContentTypes.forPath("a/master.m3u8") == "application/vnd.apple.mpegurl")
        #expect(ContentTypes.forPath("v/0001.ts") == "video/mp2t")
        #expect(ContentTypes.forPath("v/0001.m4s") == "video/mp4")
        #expect(ContentTypes.forPath("a/0001.m4a") == "audio/mp4")
        #expect(ContentTypes.forPath("s/0001.vtt") == "text/vtt")
        #expect(ContentTypes.forPath("manifest.mpd") == "application/dash+xml")
        #expect(ContentTypes.forPath("poster.webp") == "image/webp")
    }
}
