import Foundation
import StowageProtocol
import Testing

@testable import StowageDASH

/// `stowctl estimate` of a live stream: one hour of recording the Representations `submit --record` would choose,
/// at their bandwidth, one file per segment duration plus each initialization segment.
@Suite("DASH live estimate")
struct LiveDASHEstimateTests {
    func mpd(video template: String) throws -> MPD {
        let text = """
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="dynamic" availabilityStartTime="2023-11-14T22:13:20Z" \
            minimumUpdatePeriod="PT2S">
              <BaseURL>http://origin.test/live/</BaseURL>
              <Period id="p0" start="PT0S">
                <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.64001e">
                  \(template)
                  <Representation id="low" bandwidth="500000" width="640" height="360"/>
                  <Representation id="high" bandwidth="3000000" width="1280" height="720"/>
                </AdaptationSet>
                <AdaptationSet contentType="audio" mimeType="audio/mp4" lang="en" codecs="mp4a.40.2">
                  <SegmentTemplate timescale="48000" duration="192000" media="a-$Number$.m4s" initialization="a.mp4"/>
                  <Representation id="a" bandwidth="64000"/>
                </AdaptationSet>
              </Period>
            </MPD>
            """
        return try MPD(liveData: Data(text.utf8), url: "http://origin.test/live/stream.mpd")
    }

    @Test func numberedAddressingIsAnHourAtTheChosenBandwidths() throws {
        let live = try mpd(
            video: #"<SegmentTemplate timescale="1000" duration="2000" media="v-$Number$.m4s" initialization="v.mp4"/>"#
        )
        let lowest = try LiveDASHEstimate.perHour(mpd: live, selection: Selection())
        #expect(lowest.bytes == (500_000 + 64_000) / 8 * 3_600, "the lowest video and the audio, an hour each")
        #expect(lowest.files == 2 + 1_800 + 900, "two init segments, 2 s video and 4 s audio segments")
        let high = try LiveDASHEstimate.perHour(mpd: live, selection: Selection(bitrate: 4_000_000))
        #expect(high.bytes == (3_000_000 + 64_000) / 8 * 3_600, "--bitrate chooses as submit --record does")
    }

    @Test func aTimelineIsCountedAtItsFirstSegmentsDuration() throws {
        let live = try mpd(
            video: """
                <SegmentTemplate timescale="90000" media="v-$Time$.m4s" initialization="v.mp4">\
                <SegmentTimeline><S t="0" d="540000" r="3"/></SegmentTimeline></SegmentTemplate>
                """)
        let hour = try LiveDASHEstimate.perHour(mpd: live, selection: Selection())
        #expect(hour.files == 2 + 600 + 900, "6 s video segments")
        #expect(LiveDASHEstimate.seconds == 3_600)
    }

    @Test func whatARecordingRefusesTheEstimateRefusesToo() throws {
        let live = try mpd(video: #"<SegmentList duration="2"><SegmentURL media="v-1.m4s"/></SegmentList>"#)
        #expect(throws: DASHError.self) { try LiveDASHEstimate.perHour(mpd: live, selection: Selection()) }
    }
}
