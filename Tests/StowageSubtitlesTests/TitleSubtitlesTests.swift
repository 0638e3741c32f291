import Foundation
import Testing

@testable import StowageSubtitles

/// The one function over title folders laid out as the scheduler lays them out (HLS master, DASH local MPD).
@Suite struct TitleSubtitlesTests {
    @Test func hlsSegmentedWebVTT() throws {
        let master = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",URI="subs-en/index.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=600000,SUBTITLES="subs"
            v/index.m3u8
            """
        let dir = try Fixture.folder(
            [
                "hls/part0.vtt": "subs-en/part0.vtt", "hls/part1.vtt": "subs-en/part1.vtt",
                "hls/part2.vtt": "subs-en/part2.vtt", "hls/index.m3u8": "subs-en/index.m3u8",
            ],
            extra: ["master.m3u8": master])
        #expect(TitleSubtitles.languages(inTitleFolder: dir) == ["en"])
        let cues = try TitleSubtitles.cues(language: "en", inTitleFolder: dir)
        #expect(cues.map(Fixture.Timed.init) == Fixture.plainCues)
        do {
            _ = try TitleSubtitles.cues(language: "fr", inTitleFolder: dir)
            Issue.record("a language the title lacks was answered")
        } catch {
            #expect(error.code == .noTrack)
            #expect(error.message.contains("en"))
        }
    }

    @Test func dashWvttInAPeriodThatStartsLater() throws {
        var files: [String: String] = ["wvtt/init.mp4": "p1/t/init.mp4"]
        for n in 1...4 { files["wvtt/\(n).m4s"] = "p1/t/\(n).m4s" }
        let mpd = Fixture.mpd(
            textFolder: "p1/t", mime: "application/mp4", codecs: "wvtt", lang: "de", periodStart: "PT10S")
        let dir = try Fixture.folder(files, extra: ["manifest.mpd": mpd])
        let cues = try TitleSubtitles.cues(language: "de", inTitleFolder: dir)
        let source = try WebVTTText.cues(try Fixture.text("source.vtt"))
        #expect(
            cues.map(Fixture.Timed.init)
                == source.map { Fixture.Timed($0.start + 10, $0.end + 10, $0.text) })
    }

    @Test func dashStppAndSidecars() throws {
        var files: [String: String] = [
            "stpp/init.mp4": "s/init.mp4", "sidecar.ttml": "c/media.m4s",
            "plain.vtt": "v/media.m4s",
        ]
        for n in 1...4 { files["stpp/\(n).m4s"] = "s/\(n).m4s" }
        let stpp = try Fixture.folder(
            files,
            extra: [
                "manifest.mpd": Fixture.mpd(textFolder: "s", mime: "application/mp4", codecs: "stpp", lang: "en")
            ])
        #expect(
            try TitleSubtitles.cues(language: "en", inTitleFolder: stpp).map(Fixture.Timed.init) == Fixture.plainCues)

        let ttml = try Fixture.folder(
            files,
            extra: [
                "manifest.mpd": Fixture.mpd(
                    textFolder: nil, sidecar: "c/media.m4s", mime: "application/ttml+xml",
                    codecs: nil, lang: "fr")
            ])
        #expect(try TitleSubtitles.cues(language: "fr", inTitleFolder: ttml).count == 3)

        let vtt = try Fixture.folder(
            files,
            extra: [
                "manifest.mpd": Fixture.mpd(
                    textFolder: nil, sidecar: "v/media.m4s", mime: "text/vtt", codecs: nil,
                    lang: "pt-BR")
            ])
        #expect(
            try TitleSubtitles.cues(language: "pt-BR", inTitleFolder: vtt).map(Fixture.Timed.init)
                == Fixture.plainCues)
    }

    @Test func aMalformedSampleNamesItsFile() throws {
        var files: [String: String] = ["wvtt/init.mp4": "t/init.mp4"]
        for n in 1...4 { files["wvtt/\(n).m4s"] = "t/\(n).m4s" }
        let dir = try Fixture.folder(
            files,
            extra: [
                "manifest.mpd": Fixture.mpd(textFolder: "t", mime: "application/mp4", codecs: "wvtt", lang: "en")
            ])
        // Sample 3's payl box claims more bytes than its vttc holds.
        let path = dir + "/t/3.m4s"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let payl = try #require(bytes.indices.first { Array(bytes[$0..<($0 + 4)]) == Array("payl".utf8) })
        bytes[payl - 1] = 0xF0
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            _ = try TitleSubtitles.cues(language: "en", inTitleFolder: dir)
            Issue.record("a malformed sample was read")
        } catch {
            #expect(error.code == .malformed)
            #expect(error.file == "t/3.m4s")
        }
    }
}
