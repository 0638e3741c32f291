import Foundation
import Testing

@testable import StowageDASH

/// A dynamic MPD read for recording: its timing is kept, it is still refused where only static MPDs are downloaded,
/// and a dynamic MPD without the times its segments hang on is refused naming the attribute.
@Suite("DASH live MPDs")
struct LiveMPDTests {
    func mpd(_ attributes: String, type: String = "dynamic", extra: String = "") -> Data {
        Data(
            """
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="\(type)" \(attributes)>
              <BaseURL>http://origin.test/live/</BaseURL>
              \(extra)
              <Period id="p0" start="PT0S">
                <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.64001e">
                  <SegmentTemplate timescale="1000" duration="2000" startNumber="5" availabilityTimeOffset="1.5"
                    media="v-$Number$.m4s" initialization="v-init.mp4"/>
                  <Representation id="v" bandwidth="500000" width="640" height="360"/>
                </AdaptationSet>
              </Period>
            </MPD>
            """.utf8)
    }

    @Test func aDynamicMPDKeepsItsTiming() throws {
        let data = mpd(
            """
            availabilityStartTime="2023-11-14T22:13:20Z" publishTime="2023-11-14T22:28:20Z" \
            timeShiftBufferDepth="PT1M" minimumUpdatePeriod="PT2S" suggestedPresentationDelay="PT6S"
            """,
            extra: """
                <UTCTiming schemeIdUri="urn:mpeg:dash:utc:http-xsdate:2014" value="/time"/>
                <UTCTiming schemeIdUri="urn:mpeg:dash:utc:http-head:2014" value="http://origin.test/"/>
                """)
        let parsed = try MPD(liveData: data, url: "http://origin.test/live/stream.mpd")
        #expect(parsed.type == .dynamic)
        let live = try #require(parsed.live)
        #expect(live.availabilityStartTime == 1_700_000_000 && live.publishTime == 1_700_000_900)
        #expect(
            live.timeShiftBufferDepth == 60 && live.minimumUpdatePeriod == 2 && live.suggestedPresentationDelay == 6)
        #expect(live.utcTimings.map(\.scheme) == [.httpXSDate, .httpHead])
        #expect(live.utcTimings.first?.urls(against: parsed.url) == ["http://origin.test/time"])
        let representation = try #require(parsed.periods.first?.adaptationSets.first?.representations.first)
        guard case .template(let template) = representation.segmentInformation else {
            Issue.record("\(representation.segmentInformation)")
            return
        }
        #expect(template.availabilityTimeOffset == 1.5 && template.startNumber == 5)
        let segments = LiveSegments(timing: live, template: template, periodStart: 0, periodDuration: nil)
        let available = try segments.available(now: 1_700_000_010.5)
        #expect(available.map(\.number) == [5, 6, 7, 8, 9, 10])
        let last = try #require(available.last)
        #expect(try segments.location(of: last, in: representation).urls == ["http://origin.test/live/v-10.m4s"])
        #expect(try segments.initialization(of: representation)?.urls == ["http://origin.test/live/v-init.mp4"])
    }

    @Test func theDownloadPathStillRefusesLiveAndAStaticMPDReadForRecordingHasNoTiming() throws {
        let data = mpd(#"availabilityStartTime="2023-11-14T22:13:20Z""#)
        #expect(
            throws: DASHError(
                .dynamic, element: "MPD", attribute: "type",
                "MPD@type='dynamic' is a live presentation: submit it with --record to record it")
        ) {
            try MPD(data: data, url: "http://origin.test/live/stream.mpd")
        }
        let ended = try MPD(
            liveData: mpd(#"mediaPresentationDuration="PT30S""#, type: "static"), url: "http://origin.test/s.mpd")
        #expect(ended.type == .static && ended.live == nil && ended.duration == 30)
    }

    @Test func aDynamicMPDWithoutUsableTimesIsRefusedNamingTheAttribute() {
        let cases: [(String, DASHError.Code, String)] = [
            ("", .missingAttribute, "availabilityStartTime"),
            (#"availabilityStartTime="yesterday""#, .invalidAttribute, "availabilityStartTime"),
            (#"availabilityStartTime="2023-11-14T22:13:20Z" publishTime="now""#, .invalidAttribute, "publishTime"),
            (
                #"availabilityStartTime="2023-11-14T22:13:20Z" timeShiftBufferDepth="1m""#, .invalidAttribute,
                "timeShiftBufferDepth"
            ),
        ]
        for (attributes, code, attribute) in cases {
            do {
                _ = try MPD(liveData: mpd(attributes), url: "http://origin.test/live/stream.mpd")
                Issue.record("\(attributes) was accepted")
            } catch {
                #expect(error.code == code && error.attribute == attribute, "\(error)")
            }
        }
        let badOffset = Data(
            String(decoding: mpd(#"availabilityStartTime="2023-11-14T22:13:20Z""#), as: UTF8.self)
                .replacingOccurrences(of: #"availabilityTimeOffset="1.5""#, with: #"availabilityTimeOffset="-3""#)
                .utf8)
        #expect(throws: DASHError.self) { try MPD(liveData: badOffset, url: "http://origin.test/live/stream.mpd") }
    }
}
