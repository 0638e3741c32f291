import Foundation
import Testing

@testable import StowageSubtitles

/// WebVTT, TTML and SubRip text: timing maps, styling dropped, text kept.
@Suite struct TextFormatTests {
    @Test func segmentedWebVTTFromFFmpegJoinsToTheSource() throws {
        let names = ["hls/part0.vtt", "hls/part1.vtt", "hls/part2.vtt"]
        let cues = try WebVTTText.joined(try names.map(Fixture.text), names: names)
        #expect(cues.map(Fixture.Timed.init) == Fixture.plainCues)
    }

    /// The gateway's join (moved here): a cue a segment repeats from the one before, moved by its map onto the
    /// same end, is one cue from its first start.
    @Test func segmentedWebVTTIsJoinedOnThePlayersTimeline() throws {
        let first = """
            WEBVTT
            X-TIMESTAMP-MAP=MPEGTS:126000,LOCAL:00:00:00.000

            1
            00:00:00.500 --> 00:00:03.000 line:90%
            Bonjour
            tout le monde

            00:00:05.000 --> 00:00:06.500
            Ça va ?
            """
        // The second segment's map is 6 s later and its cue times local to it; the boundary cue is repeated.
        let second = """
            WEBVTT
            X-TIMESTAMP-MAP=LOCAL:00:00:00.000,MPEGTS:666000

            NOTE a comment, skipped

            00:00:00.000 --> 00:00:00.500
            Ça va ?

            00:01.000 --> 00:02.000
            Au revoir
            """
        let plain = "WEBVTT\n\n00:00:12.000 --> 00:00:13.000\nsans carte\n"
        let joined = WebVTTText.document(try WebVTTText.joined([first, second, plain], names: ["a", "b", "c"]))
        #expect(
            joined == """
                WEBVTT

                00:00:00.500 --> 00:00:03.000 line:90%
                Bonjour
                tout le monde

                00:00:05.000 --> 00:00:06.500
                Ça va ?

                00:00:07.000 --> 00:00:08.000
                Au revoir

                00:00:12.000 --> 00:00:13.000
                sans carte

                """)
        // A cue repeated as is in the next segment (same map) is written once.
        let twice = WebVTTText.document(try WebVTTText.joined([plain, plain], names: ["a", "b"]))
        #expect(twice.components(separatedBy: "sans carte").count == 2)
        #expect(WebVTTText.document(try WebVTTText.joined([], names: [])) == "WEBVTT\n")
    }

    @Test func timestampMapsPlaceSegmentsOnThePresentation() throws {
        // Segments as Apple's and Shaka's packagers write them: the first maps LOCAL 0 to the first media time;
        // the second is 10 s later on the 90 kHz clock with local times from its own start.
        let first = "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000\n\n00:00:01.000 --> 00:00:02.000\none\n"
        let second = "WEBVTT\nX-TIMESTAMP-MAP=LOCAL:00:00:00.000,MPEGTS:1800000\n\n00:00:00.500 --> 00:00:01.250\ntwo\n"
        let cues = try WebVTTText.joined([first, second], names: ["a", "b"])
        #expect(cues.map(Fixture.Timed.init) == [Fixture.Timed(1, 2, "one"), Fixture.Timed(10.5, 11.25, "two")])
    }

    @Test func aBrokenTimingLineNamesTheFile() throws {
        do {
            _ = try WebVTTText.joined(["WEBVTT\n\n00:00:01.000 --> soon\nx\n"], names: ["subs/part7.vtt"])
            Issue.record("a broken timing line was accepted")
        } catch {
            #expect(error.file == "subs/part7.vtt")
            #expect(error.description.contains("subs/part7.vtt"))
        }
    }

    @Test func ttmlSidecarKeepsTextDropsStyling() throws {
        let cues = try TTMLDocument.cues(try Fixture.bytes("sidecar.ttml"))
        #expect(
            cues.map(Fixture.Timed.init) == [
                Fixture.Timed(0.5, 1.8, "Hello &amp; welcome"), Fixture.Timed(2.0, 3.25, "Second line\ntwo lines"),
                Fixture.Timed(3.5, 3.9, "Last"),
            ])
        #expect(SRTText.document(cues).hasPrefix("1\n00:00:00,500 --> 00:00:01,800\nHello & welcome\n\n2\n"))
    }

    @Test func ttmlTimeExpressionsAndNesting() throws {
        let ttml = """
            <tt xmlns="http://www.w3.org/ns/ttml" xmlns:ttp="http://www.w3.org/ns/ttml#parameter" \
            ttp:tickRate="10000000" ttp:frameRate="25"><body><div begin="10s">
            <p begin="15000000t" end="2s">a <span>b</span>
            c</p><p begin="00:00:03:05" dur="500ms">d&#233;j&#x00E0;</p></div></body></tt>
            """
        let cues = try TTMLDocument.cues(Array(ttml.utf8))
        #expect(cues.map(Fixture.Timed.init) == [Fixture.Timed(11.5, 12, "a b c"), Fixture.Timed(13.2, 13.7, "déjà")])
    }

    @Test func brokenTTMLIsMalformed() throws {
        #expect(throws: SubtitleError.self) {
            try TTMLDocument.cues(Array("<tt><body><p begin=\"1s\" end=\"2s\">open".utf8))
        }
        #expect(throws: SubtitleError.self) {
            try TTMLDocument.cues(Array("<tt><body><p begin=\"soon\" end=\"2s\">x</p></body></tt>".utf8))
        }
    }

    @Test func srtKeepsBoldItalicUnderlineAndTheTextOfEverythingElse() {
        let cue = SubtitleCue(
            start: 3661.5, end: 3662,
            text: "<v Bob>Hi</v> <c.yellow>there</c> &amp; <i>you</i>\n<ruby>漢<rt>kan</rt></ruby>")
        #expect(
            SRTText.document([cue])
                == "1\n01:01:01,500 --> 01:01:02,000\nBob>Hi there & <i>you</i>\n漢kan\n\n"
                .replacingOccurrences(of: "Bob>", with: ""))
        #expect(WebVTTText.document([cue]).contains("<v Bob>Hi</v> <c.yellow>there</c> &amp; <i>you</i>"))
    }

    @Test func mergedJoinsACueCutAtABoundaryAndDropsRepeats() {
        let a = SubtitleCue(start: 2, end: 3, text: "x")
        let b = SubtitleCue(start: 3, end: 3.25, text: "x")
        let other = SubtitleCue(start: 2.5, end: 4, text: "y")
        #expect(SubtitleCue.merged([a, other, b, a]) == [SubtitleCue(start: 2, end: 3.25, text: "x"), other])
    }
}
