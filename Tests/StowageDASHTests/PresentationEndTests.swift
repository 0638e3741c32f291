import StowageProtocol
import Testing

@testable import StowageDASH

/// Addressing stops at the end of the Period and of the presentation (packagers that write whole fragments
/// describe more than the presentation holds, and the origin answers 404 past the end); a multi-Period title
/// lasts the sum of its Periods.
@Suite("DASH presentation end")
struct PresentationEndTests {
    /// A one-Period MPD lasting `duration` (ISO 8601) whose video Representation uses `segments` (XML).
    func mpd(duration: String, _ segments: String, period: String = "<Period>") -> String {
        """
        <?xml version="1.0"?>
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="\(duration)">
          <BaseURL>http://origin.test/movie/</BaseURL>
          \(period)
            <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.64001e">
              <Representation id="v" bandwidth="500000" width="640" height="360">
                \(segments)
              </Representation>
            </AdaptationSet>
          </Period>
        </MPD>
        """
    }

    func timeline(_ runs: String) -> String {
        """
        <SegmentTemplate timescale="1000" media="v-$Number$.m4s" initialization="v-init.mp4">
          <SegmentTimeline>\(runs)</SegmentTimeline>
        </SegmentTemplate>
        """
    }

    @Test func timelineLongerThanThePresentationStopsAtItsEnd() throws {
        // Five 2 s segments (10 s) in an 8 s presentation: the fifth is past the end.
        let video = try Fixtures.segments(
            try Fixtures.mpd(mpd(duration: "PT8S", timeline(#"<S t="0" d="2000" r="4"/>"#))))
        #expect(video.segments.map(\.location.url) == (1...4).map { "http://origin.test/movie/v-\($0).m4s" })
        #expect(video.duration == 8)
    }

    @Test func segmentAcrossTheEndIsKeptAndEndsThere() throws {
        // 3 s segments in an 8 s presentation: 0, 3, 6 (cut to 2 s); the one at 9 s is past the end.
        let video = try Fixtures.segments(try Fixtures.mpd(mpd(duration: "PT8S", timeline(#"<S d="3000" r="3"/>"#))))
        #expect(video.segments.map(\.time) == [0, 3000, 6000])
        #expect(video.segments.map(\.durationTicks) == [3000, 3000, 2000])
    }

    @Test func timelineStopsAtThePeriodDurationAndTheNextPeriodsStart() throws {
        let periods = """
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT9S">
              <BaseURL>http://origin.test/movie/</BaseURL>
              <Period id="a" duration="PT4S">\(set)</Period>
              <Period id="b" start="PT4S">\(set)</Period>
              <Period id="c" start="PT7S">\(set)</Period>
            </MPD>
            """
        let mpd = try Fixtures.mpd(periods)
        #expect(mpd.periods.map(\.duration) == [4, 3, 2])
        let counts = try (0..<3).map { try Fixtures.segments(mpd, period: $0).segments.count }
        #expect(counts == [2, 2, 1], "2 s segments: 4 s, 3 s (the last cut to 1 s) and 2 s of a 10 s timeline")
        #expect(try Fixtures.segments(mpd, period: 1).segments.last?.duration == 1)
    }

    /// An AdaptationSet whose SegmentTimeline describes 10 s.
    var set: String {
        """
        <AdaptationSet contentType="video" mimeType="video/mp4">
          <Representation id="v" bandwidth="500000">\(timeline(#"<S t="0" d="2000" r="4"/>"#))</Representation>
        </AdaptationSet>
        """
    }

    @Test func periodDurationPastThePresentationEndsWithThePresentation() throws {
        let text = mpd(duration: "PT6S", timeline(#"<S t="0" d="2000" r="4"/>"#), period: #"<Period duration="PT10S">"#)
        let mpd = try Fixtures.mpd(text)
        #expect(mpd.periods[0].duration == 6)
        #expect(try Fixtures.segments(mpd).segments.count == 3)
    }

    @Test func endNumberPastTheEndIsCut() throws {
        let template = #"<SegmentTemplate timescale="1000" duration="2000" media="v-$Number$.m4s" endNumber="6"/>"#
        let video = try Fixtures.segments(try Fixtures.mpd(mpd(duration: "PT7S", template)))
        #expect(video.segments.compactMap(\.number) == [1, 2, 3, 4])
        #expect(video.segments.last?.duration == 1)
    }

    @Test func segmentListWithALongerTimelineDropsTheURLsPastTheEnd() throws {
        let urls = (1...5).map { "<SegmentURL media=\"s\($0).m4s\"/>" }.joined()
        let list = """
            <SegmentList timescale="1000"><SegmentTimeline><S d="2000" r="4"/></SegmentTimeline>\(urls)</SegmentList>
            """
        let video = try Fixtures.segments(try Fixtures.mpd(mpd(duration: "PT6S", list)))
        #expect(video.segments.map(\.location.url) == (1...3).map { "http://origin.test/movie/s\($0).m4s" })
    }

    @Test func multiPeriodDurationIsTheSumOfThePeriods() throws {
        let plan = try Fixtures.plan(Fixtures.multiPeriod, Selection(audio: ["en", "fr"], subtitles: ["all"]))
        #expect(plan.renditions.count > 2, "several renditions per Period")
        #expect(DASHPlanner.duration(of: plan) == 10, "4 s of the ad and 6 s of the main title")
    }
}
