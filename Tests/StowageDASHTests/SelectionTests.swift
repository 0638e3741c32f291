import StowageProtocol
import Testing

@testable import StowageDASH

/// `--bitrate`, `--max-height`, `--audio`, `--subtitles` applied Period by Period.
@Suite("DASH selection")
struct SelectionTests {
    let mpd: MPD

    init() throws {
        mpd = try Fixtures.mpd(Fixtures.multiPeriod)
    }

    /// The chosen Representation ids per Period: video, audio…, subtitles….
    func ids(_ selection: Selection) throws -> [[String]] {
        try RepresentationSelector.select(mpd, selection).map { choice in
            choice.tracks.map {
                mpd.periods[choice.period].adaptationSets[$0.adaptationSet].representations[$0.representation].id
            }
        }
    }

    @Test func defaultIsLowestVideoAndMainAudioInEveryPeriod() throws {
        #expect(try ids(Selection()) == [["ad-v", "ad-a"], ["v1", "a-en-low"]])
        let choices = try RepresentationSelector.select(mpd, Selection())
        #expect(choices.map(\.period) == [0, 1])
        #expect(choices[1].audio.map(\.language) == ["en"])
        #expect(choices[1].video?.kind == .video)
    }

    @Test func bitrateAndMaxHeightPickTheVideo() throws {
        #expect(try ids(Selection(bitrate: 2_000_000))[1] == ["v1", "a-en-high"])
        #expect(try ids(Selection(bitrate: 5_000_000))[1] == ["v2", "a-en-high"])
        #expect(try ids(Selection(bitrate: 3_100_000))[1] == ["v2", "a-en-low"])
        #expect(try ids(Selection(bitrate: 100))[1] == ["v1", "a-en-low"])
        #expect(try ids(Selection(bitrate: 5_000_000, maxHeight: 720))[1] == ["v1", "a-en-high"])
        let error = Fixtures.error { _ = try RepresentationSelector.select(mpd, Selection(maxHeight: 200)) }
        #expect(error?.code == .nothingSelectable)
        #expect(error?.message.contains("200") == true)
    }

    @Test func audioLanguagesWithAFallbackInPeriodsThatLackThem() throws {
        #expect(try ids(Selection(audio: ["fr"])) == [["ad-v", "ad-a"], ["v1", "a-fr"]])
        #expect(try ids(Selection(audio: ["fr-CA", "en"])) == [["ad-v", "ad-a"], ["v1", "a-fr", "a-en-low"]])
        let error = Fixtures.error { _ = try RepresentationSelector.select(mpd, Selection(audio: ["de"])) }
        #expect(error?.code == .nothingSelectable)
        #expect(error?.message.contains("available: en, fr") == true)
    }

    @Test func firstAudioWithoutAMainRole() throws {
        let text = Fixtures.multiPeriod.replacingOccurrences(of: "value=\"main\"", with: "value=\"dub\"")
        let other = try Fixtures.mpd(text)
        let choice = try RepresentationSelector.select(other, Selection())[1]
        #expect(choice.audio.map(\.adaptationSet) == [1])
    }

    @Test func subtitlesByLanguageAllOrNone() throws {
        #expect(try ids(Selection(subtitles: ["en"]))[1] == ["v1", "a-en-low", "sub-en"])
        #expect(try ids(Selection(subtitles: ["all"]))[1].last == "sub-en")
        #expect(try ids(Selection(subtitles: ["none"]))[1] == ["v1", "a-en-low"])
        #expect(try ids(Selection(subtitles: ["fr"]))[1] == ["v1", "a-en-low"])
        let choice = try RepresentationSelector.select(mpd, Selection(subtitles: ["en"]))[1]
        #expect(choice.subtitles.map(\.kind) == [.subtitles])
        #expect(mpd.periods[1].adaptationSets[3].contentType == .text)
    }

    /// A trick-mode set (I-frames for fast-forward) is never the main video, however it is signalled, even when
    /// it is the lowest bandwidth (the default choice) or the only one under `--bitrate`.
    @Test(arguments: ["EssentialProperty", "SupplementalProperty"])
    func trickModeSetsAreNeverTheMainVideo(_ descriptor: String) throws {
        let trick = """
            <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.640028" maxFrameRate="1">
                  <\(descriptor) schemeIdUri="http://dashif.org/guidelines/trickmode" value="0"/>
                  <SegmentTemplate timescale="1000" duration="2000" media="t-$Number$.m4s" initialization="t.mp4"/>
                  <Representation id="trick" bandwidth="50000" width="320" height="180"/>
                </AdaptationSet>
                <AdaptationSet contentType="video"
            """
        let text = Fixtures.multiPeriod.replacingOccurrences(
            of: "<AdaptationSet contentType=\"video\" mimeType=\"video/mp4\" codecs=\"avc1.640028\">",
            with: trick + " mimeType=\"video/mp4\" codecs=\"avc1.640028\">")
        let other = try Fixtures.mpd(text)
        let trickSet = other.periods[1].adaptationSets[0]
        #expect(trickSet.representations.map(\.id) == ["trick"] && trickSet.isTrickMode)
        #expect(!other.periods[1].adaptationSets[1].isTrickMode)
        for selection in [Selection(), Selection(bitrate: 60_000), Selection(maxHeight: 720)] {
            let video = try RepresentationSelector.select(other, selection)[1].video
            #expect(video?.adaptationSet == 1, "\(selection): the main video set, not the trick-mode one")
        }
    }
}
