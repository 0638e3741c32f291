import Foundation
import Testing

@testable import StowageDASH

/// The clocks of a live MPD: `xs:dateTime` and HTTP dates read by hand (the box's locale and zone change nothing),
/// `UTCTiming` schemes, and the origin's clock measured from one answer.
@Suite("DASH live clocks")
struct LiveClockTests {
    @Test func dateTimesReadAsTheStandardWritesThem() {
        #expect(XSDateTime.seconds("1970-01-01T00:00:00Z") == 0)
        #expect(XSDateTime.seconds("2000-01-01T00:00:00Z") == 946_684_800)
        #expect(XSDateTime.seconds("2000-01-01T00:00:00") == 946_684_800, "no zone: UTC (DASH-IF IOP)")
        #expect(XSDateTime.seconds("2000-01-01T01:30:00+01:30") == 946_684_800)
        #expect(XSDateTime.seconds("1999-12-31T23:00:00-01:00") == 946_684_800)
        #expect(XSDateTime.seconds("2000-01-01T00:00:00.25Z") == 946_684_800.25)
        #expect(XSDateTime.seconds("2024-02-29T12:00:00Z") == 1_709_208_000)
        #expect(XSDateTime.seconds(" 2026-11-27T18:00:00Z\n") == 1_795_802_400, "an HTTP body's newline")
        let wrong = [
            "", "abc", "2023-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-27T25:00:00Z", "2026-11-27 18:00:00Z",
            "2026-11-27T18:00:00ZZ", "2026-11-27T18:00:00.Z", "2026-11-27T18:00:00+1:00", "1969-12-31T23:59:59Z",
            "2026-11-27T18:00:00+15:00", "+2026-11-27T18:00:00Z",
        ]
        for text in wrong { #expect(XSDateTime.seconds(text) == nil, "\(text)") }
    }

    @Test func datesAreWrittenBackTheSame() {
        #expect(XSDateTime.format(946_684_800) == "2000-01-01T00:00:00Z")
        #expect(XSDateTime.format(1_709_208_000.5) == "2024-02-29T12:00:00.500Z")
        for seconds in [0.0, 951_782_400, 1_796_061_599, 4_102_444_800] {
            #expect(XSDateTime.seconds(XSDateTime.format(seconds)) == seconds)
        }
    }

    @Test func httpDatesAreIMFFixdatesOnly() {
        #expect(HTTPDate.seconds("Sat, 01 Jan 2000 00:00:00 GMT") == 946_684_800)
        #expect(HTTPDate.seconds("Fri, 27 Nov 2026 18:00:00 GMT") == 1_795_802_400)
        for text in [
            "Saturday, 01-Jan-00 00:00:00 GMT", "Sat Jan  1 00:00:00 2000", "Sat, 01 Foo 2000 00:00:00 GMT",
            "Sat, 1 Jan 2000 00:00:00 GMT", "Sat, 01 Jan 2000 00:00:00 UTC", "Sat, 01 Jan 2000 0:00:00 GMT",
        ] {
            #expect(HTTPDate.seconds(text) == nil, "\(text)")
        }
    }

    @Test func utcTimingSchemesAreReadAndTheUnusableOnesSkipped() {
        let xs = UTCTiming(
            schemeIdUri: "urn:mpeg:dash:utc:http-xsdate:2014", value: "/time https://time.example/now ftp://x/y")
        #expect(xs.scheme == .httpXSDate && xs.isUsable)
        #expect(
            xs.urls(against: "http://origin.test/live/stream.mpd") == [
                "http://origin.test/time", "https://time.example/now",
            ])
        #expect(xs.time(body: Data("2026-11-27T18:00:00.5Z".utf8), dateHeader: nil) == 1_795_802_400.5)
        #expect(xs.time(body: Data("not a date".utf8), dateHeader: nil) == nil)
        #expect(xs.time(body: Data(repeating: 0x32, count: 4_000), dateHeader: nil) == nil, "a body of 4 kB is no date")

        let old = UTCTiming(schemeIdUri: "urn:mpeg:dash:utc:http-iso:2012", value: "http://t/")
        #expect(old.scheme == .httpISO)
        let head = UTCTiming(schemeIdUri: "urn:mpeg:dash:utc:http-head:2014", value: "http://t/")
        #expect(head.time(body: nil, dateHeader: "Sat, 01 Jan 2000 00:00:00 GMT") == 946_684_800)
        let direct = UTCTiming(schemeIdUri: "urn:mpeg:dash:utc:direct:2014", value: "2000-01-01T00:00:00Z")
        #expect(direct.time(body: nil, dateHeader: nil) == 946_684_800)
        #expect(direct.urls(against: "http://o/") == [])
        for uri in [
            "urn:mpeg:dash:utc:ntp:2014", "urn:mpeg:dash:utc:http-ntp:2014", "urn:example:clock",
            "urn:mpeg:dash:utc:http-xsdate:2099",
        ] {
            #expect(!UTCTiming(schemeIdUri: uri, value: "http://t/").isUsable, "\(uri)")
        }
    }

    /// The origin's time is taken at the middle of the round trip; a box five minutes behind is five minutes off.
    @Test func theOriginsClockIsTheBoxsPlusTheMeasuredOffset() {
        let clock = OriginClock(originTime: 1_000_300, sentAt: 999_999, receivedAt: 1_000_001)
        #expect(clock.offset == 300)
        #expect(clock.now(local: 2_000_000) == 2_000_300)
        #expect(OriginClock(originTime: 10, sentAt: 20, receivedAt: 10).offset == -10, "a clock stepped back mid-way")
        #expect(OriginClock(originTime: .nan, sentAt: 1, receivedAt: 2).offset == 0)
    }
}
