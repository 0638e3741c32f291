import Foundation
import Testing

@testable import StowageDASH

/// Expanding Representations into segments: templates with and without timeline, `$Time$`, SegmentList byte
/// ranges, inheritance, several BaseURLs.
@Suite("DASH addressing")
struct AddressingTests {
    let base = "http://origin.test/movie/"

    @Test func ffmpegTemplateWithoutTimelineCoversThePeriodAndCutsTheLastSegment() throws {
        let mpd = try Fixtures.mpd(Fixtures.templateNoTimeline)
        #expect(mpd.type == .static)
        #expect(mpd.mediaPresentationDuration == 9.5)
        #expect(mpd.periods.count == 1 && mpd.periods[0].duration == 9.5)
        let video = try Fixtures.segments(mpd)
        #expect(video.initialization == SegmentLocation(urls: [base + "init-stream0.m4s"]))
        #expect(video.segments.map(\.location.url) == (1...5).map { base + "chunk-stream0-0000\($0).m4s" })
        #expect(video.segments.map(\.number) == [1, 2, 3, 4, 5])
        #expect(video.segments.map(\.duration) == [2, 2, 2, 2, 1.5])
        #expect(video.segments.map(\.start) == [0, 2, 4, 6, 8])
        #expect(video.segments.last?.durationTicks == 19_200)
        #expect(video.timescale == 12_800)
        let audio = try Fixtures.segments(mpd, set: 1)
        #expect(audio.segments.count == 5)
        #expect(audio.segments[0].location.url == base + "chunk-stream1-00001.m4s")
        #expect(audio.initialization?.url == base + "init-stream1.m4s")
    }

    @Test func ffmpegTemplateWithTimelineRepeatsRuns() throws {
        let mpd = try Fixtures.mpd(Fixtures.templateTimeline(media: "chunk-stream$RepresentationID$-$Number%05d$.m4s"))
        let video = try Fixtures.segments(mpd)
        #expect(video.segments.map(\.time) == [0, 25_600, 51_200, 76_800, 102_400])
        #expect(video.segments.map(\.duration) == [2, 2, 2, 2, 1])
        #expect(video.segments.map(\.location.url) == (1...5).map { base + "chunk-stream0-0000\($0).m4s" })
    }

    @Test func timeTemplateNamesSegmentsByTheirStartTime() throws {
        let mpd = try Fixtures.mpd(Fixtures.templateTimeline(media: "chunk-stream$RepresentationID$-$Time$.m4s"))
        let video = try Fixtures.segments(mpd)
        #expect(
            video.segments.map(\.location.url)
                == ["0", "25600", "51200", "76800", "102400"].map { base + "chunk-stream0-\($0).m4s" })
        #expect(video.segments.first?.number == 1)
    }

    @Test func repeatMinusOneRunsToThePeriodEnd() throws {
        let text = Fixtures.templateTimeline(media: "s-$Number$.m4s")
            .replacingOccurrences(of: "<S t=\"0\" d=\"25600\" r=\"3\" />", with: "<S t=\"0\" d=\"25600\" r=\"-1\" />")
            .replacingOccurrences(of: "<S d=\"12800\" />", with: "")
            .replacingOccurrences(of: "PT9.0S", with: "PT9.5S")
        let video = try Fixtures.segments(try Fixtures.mpd(text))
        #expect(video.segments.count == 5)
        #expect(video.segments.last?.time == 102_400)
        #expect(video.segments.last?.location.url == base + "s-5.m4s")
    }

    @Test func singleFileSegmentListIsByteRangesOfOneFile() throws {
        let mpd = try Fixtures.mpd(Fixtures.singleFile)
        let video = try Fixtures.segments(mpd)
        let file = base + "stream0.mp4"
        #expect(video.initialization == SegmentLocation(urls: [file], range: SegmentByteRange(offset: 0, length: 840)))
        #expect(video.segments.map(\.location.urls) == [[file], [file], [file]])
        #expect(
            video.segments.map(\.location.range) == [
                SegmentByteRange(offset: 840, length: 51_502), SegmentByteRange(offset: 52_342, length: 47_658),
                SegmentByteRange(offset: 100_000, length: 20_001),
            ])
        #expect(video.segments.map(\.duration) == [2, 2, 1])
        #expect(video.segments.map(\.number) == [1, 2, 3])
        #expect(video.segments[1].location.range?.mpdText == "52342-99999")
    }

    @Test func templatesInheritAcrossLevelsAndSeveralBaseURLsAreAlternatives() throws {
        let mpd = try Fixtures.mpd(Fixtures.multiPeriod)
        #expect(mpd.baseURLs == ["http://cdn1.test/title/", "http://cdn2.test/title/"])
        #expect(mpd.periods.map(\.start) == [0, 4])
        #expect(mpd.periods.map(\.duration) == [4, 6])
        // Period-level template, Representation id substituted, both CDNs in order.
        let ad = try Fixtures.segments(mpd, period: 0)
        #expect(ad.segments.count == 2)
        #expect(
            ad.segments[1].location.urls == [
                "http://cdn1.test/title/ad-v/seg-2.m4s", "http://cdn2.test/title/ad-v/seg-2.m4s",
            ])
        #expect(
            ad.initialization?.urls == ["http://cdn1.test/title/ad-v/init.mp4", "http://cdn2.test/title/ad-v/init.mp4"])
        // AdaptationSet template completed by the Representation's startNumber; Period BaseURL appended.
        let v1 = try Fixtures.segments(mpd, period: 1, set: 0, rep: 0)
        #expect(v1.segments.map(\.number) == [10, 11, 12])
        #expect(v1.segments.map(\.start) == [0, 2, 4])
        #expect(
            v1.segments[0].location.urls == [
                "http://cdn1.test/title/main/v-1000000-010.m4s", "http://cdn2.test/title/main/v-1000000-010.m4s",
            ])
        #expect(v1.initialization?.url == "http://cdn1.test/title/main/v-1000000-init.mp4")
        let v2 = try Fixtures.segments(mpd, period: 1, set: 0, rep: 1)
        #expect(v2.segments.map(\.number) == [1, 2, 3])
        #expect(v2.segments[2].location.url == "http://cdn1.test/title/main/v-3000000-003.m4s")
        // A Representation with only a BaseURL: the whole file, one segment lasting the Period.
        let subtitles = try Fixtures.segments(mpd, period: 1, set: 3)
        #expect(subtitles.initialization == nil)
        #expect(subtitles.segments.map(\.location.url) == ["http://cdn1.test/title/main/subs/en.vtt"])
        #expect(subtitles.segments.map(\.duration) == [6])
    }

    @Test func absoluteBaseURLsAtLowerLevelsReplaceTheParents() throws {
        let text = Fixtures.templateNoTimeline.replacingOccurrences(
            of: "<Period id=\"0\" start=\"PT0.0S\">",
            with: "<Period id=\"0\" start=\"PT0.0S\"><BaseURL>https://a.test/x/</BaseURL><BaseURL>b/</BaseURL>")
        let video = try Fixtures.segments(try Fixtures.mpd(text))
        #expect(
            video.segments[0].location.urls == [
                "https://a.test/x/chunk-stream0-00001.m4s", base + "b/chunk-stream0-00001.m4s",
            ])
    }

    @Test func urlTemplatesFormatNumbersAndEscapeDollars() throws {
        let values = URLTemplate.Values(representationID: "v 1", bandwidth: 2_000, number: 42, time: 255)
        #expect(
            try URLTemplate.expand("$RepresentationID$/$Number%05d$.m4s", values, attribute: "media") == "v 1/00042.m4s"
        )
        #expect(try URLTemplate.expand("a$$b-$Bandwidth$-$Time$", values, attribute: "media") == "a$b-2000-255")
        #expect(try URLTemplate.expand("$Time%08x$-$Number%1d$", values, attribute: "media") == "000000ff-42")
        let unknown = Fixtures.error { _ = try URLTemplate.expand("$SubNumber$", values, attribute: "media") }
        #expect(unknown?.code == .unsupported && unknown?.attribute == "media")
        let open = Fixtures.error { _ = try URLTemplate.expand("seg-$Number.m4s", values, attribute: "media") }
        #expect(open?.code == .invalidAttribute)
        let noTime = URLTemplate.Values(representationID: "v", bandwidth: 1)
        let missing = Fixtures.error { _ = try URLTemplate.expand("$Time$", noTime, attribute: "initialization") }
        #expect(missing?.message.contains("SegmentTemplate@initialization") == true)
    }

    @Test func isoDurationsParseAndFormat() {
        #expect(ISODuration.seconds("PT1H2M3.5S") == 3723.5)
        #expect(ISODuration.seconds("P1DT2H") == 93_600)
        #expect(ISODuration.seconds("P0Y0M0DT0H3M30.000S") == 210)
        #expect(ISODuration.seconds("PT0S") == 0)
        for bad in ["PT", "P", "1H", "PT1.5H", "P1Y", "PT2S3M", "-PT1S", "PT1H1H"] {
            #expect(ISODuration.seconds(bad) == nil, "\(bad)")
        }
        #expect(ISODuration.format(3723.5) == "PT1H2M3.500S")
        #expect(ISODuration.format(9.5) == "PT9.500S")
        #expect(ISODuration.seconds(ISODuration.format(123.456)) == 123.456)
    }
}
