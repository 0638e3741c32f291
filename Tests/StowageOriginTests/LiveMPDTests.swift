import Foundation
import Testing

@testable import StowageOrigin

/// `stowage-origin serve --live` for a static MPD: the dynamic rendering at a moment of the origin's clock (a
/// timeline cut to what is complete and in the window, its `@startNumber` moved with it; `@duration` templates as
/// they are), the `UTCTiming`, the end (static again), and which segment requests are too early.
@Suite("Live MPD rendering")
struct LiveMPDRenderTests {
    static let source = """
        <?xml version="1.0" encoding="utf-8"?>
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-live:2011"
        \ttype="static"
        \tmediaPresentationDuration="PT12.0S"
        \tminBufferTime="PT4.0S">
        \t<Period id="0" start="PT0.0S">
        \t\t<AdaptationSet id="0" contentType="video">
        \t\t\t<Representation id="0" mimeType="video/mp4" bandwidth="200000">
        \t\t\t\t<SegmentTemplate timescale="12800" initialization="init-stream$RepresentationID$.m4s" \
        media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="1">
        \t\t\t\t\t<SegmentTimeline>
        \t\t\t\t\t\t<S t="0" d="25600" r="5" />
        \t\t\t\t\t</SegmentTimeline>
        \t\t\t\t</SegmentTemplate>
        \t\t\t</Representation>
        \t\t</AdaptationSet>
        \t\t<AdaptationSet id="1" contentType="audio">
        \t\t\t<Representation id="1" mimeType="audio/mp4" bandwidth="64000">
        \t\t\t\t<SegmentTemplate timescale="1000" duration="2000" initialization="a-init.m4s" \
        media="a-$Number$.m4s" startNumber="1"/>
        \t\t\t</Representation>
        \t\t</AdaptationSet>
        \t</Period>
        </MPD>
        """

    @Test func aTimelineShowsWhatIsCompleteInTheWindowAndTheMPDTurnsDynamic() throws {
        let mpd = try LiveMPD(parsing: Self.source, path: "live/manifest.mpd")
        #expect(mpd.total == 12 && mpd.segmentDuration == 2)
        let text = mpd.render(
            liveTime: 7.5, now: 1_700_000_007.5, availabilityStart: 1_700_000_000, window: 2, timeURL: "/live-time")
        #expect(text.contains(#"type="dynamic""#) && !text.contains("mediaPresentationDuration"), "\(text)")
        #expect(text.contains(#"availabilityStartTime="2023-11-14T22:13:20Z""#), "\(text)")
        #expect(text.contains(#"timeShiftBufferDepth="PT4.000S""#) && text.contains(#"minimumUpdatePeriod="PT1S""#))
        #expect(
            text.contains(#"<SegmentTimeline><S t="25600" d="25600"/><S t="51200" d="25600"/></SegmentTimeline>"#),
            "the segments ending at 4 and 6 s: the one at 8 s is not complete, the one at 2 s left the window")
        #expect(text.contains(#"startNumber="2""#), "the first listed segment is number 2")
        #expect(text.contains(#"duration="2000""#), "a @duration template is left for the client to compute")
        #expect(text.contains(#"<UTCTiming schemeIdUri="urn:mpeg:dash:utc:http-xsdate:2014" value="/live-time"/>"#))
        let ended = mpd.render(
            liveTime: 12, now: 1_700_000_012, availabilityStart: 1_700_000_000, window: 2, timeURL: "/live-time")
        #expect(ended == Self.source, "once every segment is out the MPD is static again")
    }

    @Test func aSegmentAskedForBeforeItIsCompleteIsRefused() throws {
        let mpd = try LiveMPD(parsing: Self.source, path: "live/manifest.mpd")
        #expect(mpd.isAvailable(path: "live/chunk-stream0-00003.m4s", liveTime: 6.0) == true, "4–6 s")
        #expect(mpd.isAvailable(path: "live/chunk-stream0-00004.m4s", liveTime: 7.9) == false, "6–8 s")
        #expect(mpd.isAvailable(path: "live/chunk-stream0-00007.m4s", liveTime: 100) == false, "past the timeline")
        #expect(mpd.isAvailable(path: "live/a-4.m4s", liveTime: 8.0) == true)
        #expect(mpd.isAvailable(path: "live/a-5.m4s", liveTime: 8.0) == false)
        #expect(mpd.isAvailable(path: "live/init-stream0.m4s", liveTime: 0) == nil, "not a media segment")
        #expect(mpd.isAvailable(path: "other/a-5.m4s", liveTime: 0) == nil, "another folder")
    }

    /// Two Periods (a programme, then at 6 s another from `b/`): the second appears when the clock reaches its
    /// start, the newest shown has no end yet, each timeline and segment counts from its own Period's start.
    @Test func aSecondPeriodAppearsAtItsStart() throws {
        let period = { (id: String, start: Int) in
            """
              <Period id="\(id)" start="PT\(start)S" duration="PT6S"><BaseURL>\(id)/</BaseURL>
                <AdaptationSet contentType="video"><Representation id="v" bandwidth="1">
                  <SegmentTemplate timescale="1000" media="c-$Number$.m4s" startNumber="1">
                    <SegmentTimeline><S t="0" d="2000" r="2"/></SegmentTimeline></SegmentTemplate>
                </Representation></AdaptationSet>
              </Period>

            """
        }
        let source = """
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT12S">
            \(period("a", 0))\(period("b", 6))</MPD>
            """
        let mpd = try LiveMPD(parsing: source, path: "live/manifest.mpd")
        let early = mpd.render(liveTime: 4.5, now: 1, availabilityStart: 0, window: 0, timeURL: "/t")
        #expect(early.contains(#"<Period id="a" start="PT0S">"#) && !early.contains(#"id="b""#), "\(early)")
        let later = mpd.render(liveTime: 8.5, now: 1, availabilityStart: 0, window: 0, timeURL: "/t")
        #expect(later.contains(#"<Period id="a" start="PT0S" duration="PT6S">"#), "the programme ended: \(later)")
        #expect(later.contains(#"<Period id="b" start="PT6S">"#), "the new Period, still going: \(later)")
        #expect(later.contains(#"<SegmentTimeline><S t="0" d="2000"/></SegmentTimeline>"#), "b's first: \(later)")
        #expect(mpd.isAvailable(path: "live/b/c-1.m4s", liveTime: 8.0) == true, "6–8 s")
        #expect(mpd.isAvailable(path: "live/b/c-2.m4s", liveTime: 8.0) == false, "8–10 s")
        #expect(mpd.isAvailable(path: "live/a/c-3.m4s", liveTime: 6.0) == true, "4–6 s")
    }

    @Test func anMPDThatCannotBeServedLiveIsNamed() {
        #expect(throws: LivePlaylist.Failure("x.mpd: a live DASH stream needs MPD@mediaPresentationDuration")) {
            try LiveMPD(parsing: #"<MPD type="static"><SegmentTemplate media="a"/></MPD>"#, path: "x.mpd")
        }
    }
}
