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
