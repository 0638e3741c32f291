import Foundation
import StowageProtocol
import Testing

@testable import StowageDASH

/// A DASH-IF trick-mode AdaptationSet (`http://dashif.org/guidelines/trickmode`): left out unless `--iframes`
/// asks for it; then the one that goes with the chosen video is planned with it and the offline MPD keeps it as a
/// trick-mode set of the local video set.
@Suite("DASH trick mode")
struct TrickModeTests {
    /// `Fixtures.multiPeriod` with two trick-mode sets in the main Period: one for another set (`id="9"`), listed
    /// first, and one for the video set (`id="1"`) with two Representations.
    static let text = Fixtures.multiPeriod.replacingOccurrences(
        of: "<AdaptationSet contentType=\"video\" mimeType=\"video/mp4\" codecs=\"avc1.640028\">",
        with: """
            <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.640028" maxFrameRate="1">
                  <EssentialProperty schemeIdUri="http://dashif.org/guidelines/trickmode" value="9"/>
                  <SegmentTemplate timescale="1000" duration="2000" media="x-$Number$.m4s" initialization="x.mp4"/>
                  <Representation id="other-trick" bandwidth="40000" width="320" height="180"/>
                </AdaptationSet>
                <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.640028" maxFrameRate="1">
                  <EssentialProperty schemeIdUri="http://dashif.org/guidelines/trickmode" value="1"/>
                  <SegmentTemplate timescale="1000" duration="2000" media="t-$RepresentationID$-$Number$.m4s"
                                   initialization="t-$RepresentationID$.mp4"/>
                  <Representation id="trick-low" bandwidth="50000" width="320" height="180"/>
                  <Representation id="trick-high" bandwidth="2000000" width="1920" height="1080"/>
                </AdaptationSet>
                <AdaptationSet id="1" contentType="video" mimeType="video/mp4" codecs="avc1.640028">
            """)

    func ids(_ selection: Selection) throws -> [[String]] {
        let mpd = try Fixtures.mpd(Self.text)
        return try RepresentationSelector.select(mpd, selection).map { choice in
            choice.tracks.map {
                mpd.periods[choice.period].adaptationSets[$0.adaptationSet].representations[$0.representation].id
            }
        }
    }

    @Test func leftOutUnlessAskedFor() throws {
        #expect(try ids(Selection()) == [["ad-v", "ad-a"], ["v1", "a-en-low"]])
        let plan = try Fixtures.plan(Self.text)
        #expect(!plan.masterPlaylist.contains("trickmode") && !plan.resources.contains { $0.url.contains("/t-") })
    }

    /// The set whose value names the video's `@id`, not the first trick-mode set; the Representation highest not
    /// above the video's bandwidth; the Period without one gets none.
    @Test func keptWithIFramesForTheChosenVideo() throws {
        #expect(try ids(Selection(iframes: true)) == [["ad-v", "ad-a"], ["v1", "a-en-low", "trick-low"]])
        #expect(
            try ids(Selection(bitrate: 5_000_000, iframes: true))[1] == ["v2", "a-en-high", "trick-high"])
        let plan = try Fixtures.plan(Self.text, Selection(iframes: true))
        let trick = plan.resources.filter { $0.url.contains("/main/t-trick-low") }
        #expect(trick.count == 4 && trick.first?.kind == .initSection, "\(trick.map(\.url))")
        let mpd = try Fixtures.mpd(plan.masterPlaylist, url: "http://box.test/t/manifest.mpd")
        let sets = mpd.periods[1].adaptationSets
        try #require(sets.count == 3, "video, audio, trick mode: \(plan.masterPlaylist)")
        #expect(!sets[0].isTrickMode && sets[0].id == "0")
        #expect(sets[2].isTrickMode && sets[2].trickModeOf == "0", "it names the local video set")
        #expect(sets[2].representations.map(\.id) == ["trick-low"])
        #expect(DASHPlanner.duration(of: plan) == 10, "the trick-mode track adds no time")
    }

    /// A recording keeps no trick-mode set, even with `--iframes` (live HLS keeps no I-frame playlist either).
    @Test func aRecordingNeverKeepsIt() throws {
        let text = """
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="dynamic" availabilityStartTime="2023-11-14T22:13:20Z" \
            minimumUpdatePeriod="PT1S">
              <BaseURL>http://origin.test/live/</BaseURL>
              <Period id="p0" start="PT0S">
                <AdaptationSet id="1" contentType="video" mimeType="video/mp4" codecs="avc1.64001e">
                  <SegmentTemplate timescale="1000" duration="2000" media="v-$Number$.m4s" initialization="v.mp4"/>
                  <Representation id="v" bandwidth="500000" width="640" height="360"/>
                </AdaptationSet>
                <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.64001e">
                  <EssentialProperty schemeIdUri="http://dashif.org/guidelines/trickmode" value="1"/>
                  <SegmentTemplate timescale="1000" duration="2000" media="t-$Number$.m4s" initialization="t.mp4"/>
                  <Representation id="t" bandwidth="50000" width="320" height="180"/>
                </AdaptationSet>
              </Period>
            </MPD>
            """
        let mpd = try MPD(liveData: Data(text.utf8), url: "http://origin.test/live/stream.mpd")
        #expect(try RepresentationSelector.select(mpd, Selection(iframes: true)).first?.trickMode != nil)
        let planned = try LiveDASHPlanner.plan(mpd: mpd, selection: Selection(iframes: true))
        #expect(planned.plan.resources.map(\.url) == ["http://origin.test/live/v.mp4"], "the video's init alone")
        #expect(planned.states.count == 1 && !planned.plan.masterPlaylist.contains("trickmode"))
    }
}
