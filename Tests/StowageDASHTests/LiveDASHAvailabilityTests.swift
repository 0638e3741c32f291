import Foundation
import StowageProtocol
import Testing

@testable import StowageDASH

/// How long a listed live segment that answered 404 is asked for again: until its end leaves the origin's
/// time-shift window (on the origin's clock, however far off the box's is), or 30 s after its end without a window.
@Suite("DASH live segment availability")
struct LiveDASHAvailabilityTests {
    static let ast = 1_700_000_000.0

    func recorded(timing: String, template: String, now: Double) throws -> (LiveDASHRendition, [String]) {
        let text = """
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="dynamic" availabilityStartTime="2023-11-14T22:13:20Z" \
            minimumUpdatePeriod="PT1S" \(timing)>
              <BaseURL>http://origin.test/live/</BaseURL>
              <Period id="p0" start="PT4S">
                <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.64001e">
                  \(template)
                  <Representation id="v" bandwidth="500000" width="640" height="360"/>
                </AdaptationSet>
              </Period>
            </MPD>
            """
        let mpd = try MPD(liveData: Data(text.utf8), url: "http://origin.test/live/stream.mpd")
        var state = try #require(try LiveDASHPlanner.plan(mpd: mpd, selection: Selection()).states.first)
        let delta = try LiveDASHRecorder.merge(&state, rendition: 0, mpd: mpd, now: now, record: RecordRequest())
        return (state, delta.lines)
    }

    @Test func aSegmentIsRetriedUntilItsEndLeavesTheWindow() throws {
        let (state, lines) = try recorded(
            timing: #"timeShiftBufferDepth="PT10S""#,
            template: #"<SegmentTemplate timescale="1000" duration="2000" media="v-$Number$.m4s"/>"#,
            now: Self.ast + 4 + 6.5)
        #expect(lines.count == 3, "segments ending at 2, 4 and 6 s of the Period starting at 4 s")
        let second = try #require(LiveDASHRendition.line(of: "p0/video-0-0/seg-00002.m4s", in: lines))
        #expect(second == #"<S t="2000" d="2000"/>"#)
        #expect(state.availableUntil(line: second) == Self.ast + 4 + 4 + 10, "its end, then the window")
        #expect(state.retryTimeLeft(line: second, boxNow: Self.ast + 17) == 1)
        #expect(state.retryTimeLeft(line: second, boxNow: Self.ast + 18) == nil, "it has left the window: a gap")
        #expect(LiveDASHRendition.line(of: "p0/video-0-0/init.mp4", in: lines) == nil)
        #expect(LiveDASHRendition.line(of: "p0/video-0-0/seg-00004.m4s", in: lines) == nil, "not listed")
    }

    @Test func theOriginsClockDecidesNotTheBoxs() throws {
        var (state, lines) = try recorded(
            timing: #"timeShiftBufferDepth="PT10S""#,
            template: #"<SegmentTemplate timescale="1000" duration="2000" media="v-$Number$.m4s"/>"#,
            now: Self.ast + 10.5)
        state.clockOffset = -300  // the origin five minutes behind the box
        let first = try #require(lines.first)
        #expect(state.retryTimeLeft(line: first, boxNow: Self.ast + 300 + 15) == 1, "by the origin: 15 of 16 s")
        state.clockOffset = 0
        #expect(state.retryTimeLeft(line: first, boxNow: Self.ast + 300 + 15) == nil)
    }

    @Test func withoutAWindowASegmentIsRetriedThirtySecondsPastItsEnd() throws {
        let (state, lines) = try recorded(
            timing: "",
            template: """
                <SegmentTemplate timescale="90000" presentationTimeOffset="90000" media="v-$Time$.m4s">\
                <SegmentTimeline><S t="90000" d="180000" r="4"/></SegmentTimeline></SegmentTemplate>
                """,
            now: Self.ast + 4 + 4.5)
        let second = try #require(lines.dropFirst().first)
        #expect(second == #"<S t="270000" d="180000"/>"#)
        #expect(state.availableUntil(line: second) == Self.ast + 4 + 4 + LiveDASHRendition.retrySpanWithoutWindow)
    }
}
