import Foundation
import StowageProtocol
import Testing

@testable import StowageDASH

/// The offline MPD: only local files, `$Number$` templates with explicit timelines, re-readable by the parser
/// into exactly the files the tracks name.
@Suite("DASH local MPD")
struct LocalMPDWriterTests {
    /// Every chosen track of `mpd`, addressed, as local tracks per Period.
    func localPeriods(_ mpd: MPD, _ selection: Selection) throws -> [LocalMPDWriter.LocalPeriod] {
        try RepresentationSelector.select(mpd, selection).map { choice in
            let period = mpd.periods[choice.period]
            let tracks = try choice.tracks.map { track in
                let rep = period.adaptationSets[track.adaptationSet].representations[track.representation]
                guard case .segments(let segments) = try SegmentAddresser.address(rep, in: period) else {
                    throw DASHError(.unsupported, "index")
                }
                return LocalTrack(mpd: mpd, period: choice.period, track: track, segments: segments)
            }
            return LocalMPDWriter.LocalPeriod(
                id: period.id, start: period.start, duration: period.duration, tracks: tracks)
        }
    }

    @Test func writesNumberTemplatesWithTimelineAndOnlyLocalNames() throws {
        let mpd = try Fixtures.mpd(Fixtures.templateNoTimeline)
        let periods = try localPeriods(mpd, Selection())
        let text = LocalMPDWriter.write(periods: periods, mediaPresentationDuration: mpd.mediaPresentationDuration)
        #expect(!text.contains("http://origin"))
        #expect(!text.contains("$Time$"))
        #expect(text.contains("mediaPresentationDuration=\"PT9.500S\""))
        #expect(text.contains("media=\"p0/video-0-0-und/seg-$Number%05d$.m4s\" startNumber=\"1\""))
        #expect(text.contains("initialization=\"p0/video-0-0-und/init.mp4\""))
        #expect(text.contains("<S t=\"0\" d=\"25600\" r=\"3\"/>\n            <S d=\"19200\"/>"))
        let files = periods[0].tracks[0].files
        #expect(
            files.map(\.localPath).prefix(3) == [
                "p0/video-0-0-und/init.mp4", "p0/video-0-0-und/seg-00001.m4s",
                "p0/video-0-0-und/seg-00002.m4s",
            ])
        #expect(files.map(\.kind).prefix(2) == [.initSection, .segment])
        #expect(files[1].source.url == "http://origin.test/movie/chunk-stream0-00001.m4s")
    }

    /// Parses the written MPD at a local URL and checks that every track's segments are its local files.
    func expectRoundTrip(_ periods: [LocalMPDWriter.LocalPeriod]) throws {
        let text = LocalMPDWriter.write(periods: periods)
        let root = "http://local.test/t/"
        let local = try MPD(text: text, url: root + "manifest.mpd")
        #expect(local.periods.count == periods.count)
        for (p, period) in periods.enumerated() {
            #expect(local.periods[p].adaptationSets.count == period.tracks.count)
            for (t, track) in period.tracks.enumerated() {
                let reread = try Fixtures.segments(local, period: p, set: t)
                #expect(reread.initialization?.url == track.initializationPath.map { root + $0 })
                #expect(
                    reread.segments.map(\.location.url)
                        == track.segments.segments.indices.map {
                            root + track.segmentPath($0)
                        })
                #expect(reread.segments.map(\.location.range) == reread.segments.map { _ in nil })
                let original = track.segments.segments.map { ($0.duration * 1000).rounded() }
                #expect(reread.segments.map { ($0.duration * 1000).rounded() } == original)
                #expect(local.periods[p].adaptationSets[t].lang == track.adaptationSet.lang)
            }
        }
    }

    @Test func byteRangeSourcesBecomeOneFileEach() throws {
        let mpd = try Fixtures.mpd(Fixtures.singleFile)
        let periods = try localPeriods(mpd, Selection())
        try expectRoundTrip(periods)
        let files = periods[0].tracks[0].files
        #expect(files.map(\.source.range?.offset) == [0, 840, 52_342, 100_000])
        #expect(Set(files.map(\.localPath)).count == files.count)
    }

    @Test func timeTemplatesAreRewrittenAsNumberTemplates() throws {
        let mpd = try Fixtures.mpd(Fixtures.templateTimeline(media: "c-$Time$.m4s"))
        let periods = try localPeriods(mpd, Selection())
        try expectRoundTrip(periods)
        #expect(!LocalMPDWriter.write(periods: periods).contains("$Time$"))
    }

    @Test func multiPeriodWritesEveryPeriodWithDistinctFolders() throws {
        let mpd = try Fixtures.mpd(Fixtures.multiPeriod)
        let periods = try localPeriods(mpd, Selection(audio: ["fr", "en"], subtitles: ["en"]))
        try expectRoundTrip(periods)
        let text = LocalMPDWriter.write(periods: periods, mediaPresentationDuration: mpd.mediaPresentationDuration)
        #expect(text.contains("<Period id=\"ad\" start=\"PT0.000S\" duration=\"PT4.000S\">"))
        #expect(text.contains("<Period id=\"main\" start=\"PT4.000S\" duration=\"PT6.000S\">"))
        #expect(text.contains("<BaseURL>p1/subtitles-3-0-en/media.m4s</BaseURL>"))
        #expect(text.contains("<Role schemeIdUri=\"urn:mpeg:dash:role:2011\" value=\"main\"/>"))
        #expect(!text.contains("cdn1.test") && !text.contains("cdn2.test"))
        let paths = periods.flatMap(\.tracks).flatMap(\.files).map(\.localPath)
        #expect(Set(paths).count == paths.count)
        #expect(paths.contains("p0/video-0-0/init.mp4") && paths.contains("p1/video-0-0/init.mp4"))
        // ffmpeg 5.1's DASH reader refuses the whole MPD when a URL has another extension (`.vtt`, say).
        let allowed: Set<String> = ["aac", "m4a", "m4s", "m4v", "mov", "mp4", "webm", "ts"]
        #expect(paths.allSatisfy { allowed.contains(String($0.split(separator: ".").last ?? "")) })
        let subtitle = periods[1].tracks.last?.files
        #expect(subtitle?.map(\.kind) == [.subtitle])
        #expect(subtitle?.map(\.container) == [.webVTT])
        #expect(periods[1].tracks[0].files.allSatisfy { $0.container == .fmp4 })
        #expect(subtitle?.first?.source.urls.count == 2)
    }

    @Test func contentProtectionIsKept() throws {
        let mpd = try Fixtures.mpd(Fixtures.encrypted(clearKey: false))
        let periods = try localPeriods(mpd, Selection())
        let text = LocalMPDWriter.write(periods: periods)
        let local = try MPD(text: text, url: "http://local.test/t/manifest.mpd")
        let reread = local.periods[0].adaptationSets[0].representations[0].contentProtections
        #expect(reread == mpd.periods[0].adaptationSets[0].representations[0].contentProtections)
        #expect(text.contains("cenc:default_KID=\"10000000-1000-1000-1000-10000000000a\""))
        #expect(text.contains("<mspr:la_url>https://pr.test/rightsmanager.asmx</mspr:la_url>"))
    }
}
