import StowageProtocol
import Testing

@testable import StowageDASH

/// `--video-codec`, `--video-range`, `--audio-codec`, `--channels`, `--audio-only` on an MPD.
@Suite("DASH selection by what a device decodes")
struct CodecSelectionTests {
    /// A mixed ladder: AVC and HEVC sets, the HEVC 720p Representation flagged PQ (transfer characteristics 16),
    /// one HLG; AAC stereo and AC-3 5.1 (two channel schemes); the cheapest video is HEVC.
    static let mixed = """
        <?xml version="1.0"?>
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT8S" minBufferTime="PT2S">
          <Period id="p">
            <SegmentTemplate timescale="1000" duration="2000" media="$RepresentationID$/$Number$.m4s"
                             initialization="$RepresentationID$/init.mp4"/>
            <AdaptationSet contentType="video" mimeType="video/mp4" codecs="hvc1.1.6.L93.B0">
              <Representation id="hevc360" bandwidth="400000" width="640" height="360"/>
              <Representation id="hevc720pq" bandwidth="1500000" width="1280" height="720">
                <EssentialProperty schemeIdUri="urn:mpeg:mpegB:cicp:TransferCharacteristics" value="16"/>
              </Representation>
              <Representation id="hevc720hlg" bandwidth="1600000" width="1280" height="720">
                <SupplementalProperty schemeIdUri="urn:mpeg:mpegB:cicp:TransferCharacteristics" value="18"/>
              </Representation>
            </AdaptationSet>
            <AdaptationSet contentType="video" mimeType="video/mp4">
              <Representation id="avc360" bandwidth="700000" width="640" height="360" codecs="avc1.4d401e"/>
              <Representation id="avc720" bandwidth="2500000" width="1280" height="720" codecs="avc3.4d401f"/>
            </AdaptationSet>
            <AdaptationSet contentType="audio" mimeType="audio/mp4" codecs="ac-3" lang="en">
              <AudioChannelConfiguration schemeIdUri="urn:mpeg:mpegB:cicp:ChannelConfiguration" value="6"/>
              <Representation id="ac3" bandwidth="384000"/>
            </AdaptationSet>
            <AdaptationSet contentType="audio" mimeType="audio/mp4" codecs="mp4a.40.2" lang="en">
              <Role schemeIdUri="urn:mpeg:dash:role:2011" value="main"/>
              <Representation id="aac" bandwidth="128000">
                <AudioChannelConfiguration schemeIdUri="urn:mpeg:dash:23003:3:audio_channel_configuration:2011"
                                           value="2"/>
              </Representation>
            </AdaptationSet>
            <AdaptationSet contentType="audio" mimeType="audio/mp4" codecs="ec-3" lang="de">
              <AudioChannelConfiguration schemeIdUri="tag:dolby.com,2014:dash:audio_channel_configuration:2011"
                                         value="F801"/>
              <Representation id="ec3-de" bandwidth="256000"/>
            </AdaptationSet>
          </Period>
        </MPD>
        """

    func ids(_ selection: Selection) throws -> [String] {
        let mpd = try Fixtures.mpd(Self.mixed)
        let choice = try #require(try RepresentationSelector.select(mpd, selection).first)
        let period = mpd.periods[choice.period]
        return choice.tracks.map { period.adaptationSets[$0.adaptationSet].representations[$0.representation].id }
    }

    @Test func descriptorsAreRead() throws {
        let sets = try Fixtures.mpd(Self.mixed).periods[0].adaptationSets
        #expect(sets[0].representations.map(\.videoRange) == [.sdr, .pq, .hlg])
        #expect(sets[2].representations[0].audioChannels == 6)
        #expect(sets[3].representations[0].audioChannels == 2)
        #expect(sets[4].representations[0].audioChannels == 6)
    }

    @Test func withoutTheOptionsNothingChanges() throws {
        #expect(try ids(Selection()) == ["hevc360", "aac"])
    }

    @Test func avcNeverPicksHEVCWhateverTheBitrate() throws {
        for bitrate in [nil, 100, 500_000, 1_700_000, 2_700_000, 10_000_000] {
            let video = try ids(Selection(bitrate: bitrate, videoCodec: [.avc]))[0]
            #expect(video.hasPrefix("avc"), "bitrate \(String(describing: bitrate)) picked \(video)")
        }
        #expect(try ids(Selection(bitrate: 2_700_000, videoCodec: [.avc]))[0] == "avc720")
    }

    @Test func preferenceOrder() throws {
        #expect(try ids(Selection(videoCodec: [.av1, .avc, .hevc]))[0] == "avc360")
        #expect(try ids(Selection(videoCodec: [.hevc, .avc]))[0] == "hevc360")
    }

    @Test func videoRange() throws {
        #expect(try ids(Selection(videoRange: .pq))[0] == "hevc720pq")
        #expect(try ids(Selection(videoRange: .hlg))[0] == "hevc720hlg")
        #expect(try ids(Selection(bitrate: 9_000_000, videoRange: .sdr))[0] == "avc720")
        let error = Fixtures.error {
            _ = try RepresentationSelector.select(
                try Fixtures.mpd(Self.mixed), Selection(videoCodec: [.avc], videoRange: .hlg))
        }
        #expect(error?.code == .nothingSelectable)
        #expect(error?.message.contains("hevc hlg 1280x720") == true)
        #expect(error?.message.contains("avc sdr 640x360") == true)
    }

    @Test func channelsAndAudioCodec() throws {
        #expect(try ids(Selection(channels: 2)) == ["hevc360", "aac"])
        #expect(try ids(Selection(audioCodec: [.ac3, .aac])) == ["hevc360", "ac3"])
        #expect(try ids(Selection(audio: ["de"], audioCodec: [.ec3])) == ["hevc360", "ec3-de"])
        // German is only 5.1: within --channels 2 the language is not on offer.
        let german = Fixtures.error {
            _ = try RepresentationSelector.select(try Fixtures.mpd(Self.mixed), Selection(audio: ["de"], channels: 2))
        }
        #expect(german?.code == .nothingSelectable)
        let error = Fixtures.error {
            _ = try RepresentationSelector.select(try Fixtures.mpd(Self.mixed), Selection(channels: 1))
        }
        #expect(error?.code == .nothingSelectable)
        #expect(error?.message.contains("--channels 1") == true)
        #expect(error?.message.contains("aac 2ch") == true)
        #expect(error?.message.contains("ac-3 6ch") == true)
    }

    @Test func audioOnlyKeepsOnlyAudio() throws {
        let mpd = try Fixtures.mpd(Self.mixed)
        let choice = try #require(try RepresentationSelector.select(mpd, Selection(audioOnly: true)).first)
        #expect(choice.video == nil)
        #expect(choice.tracks.allSatisfy { $0.kind == .audio })
        #expect(try ids(Selection(audioOnly: true)) == ["aac"])
        let plan = try Fixtures.plan(Self.mixed, Selection(audioOnly: true))
        #expect(!plan.resources.isEmpty)
        #expect(!plan.resources.contains { $0.url.contains("hevc") || $0.url.contains("avc") })
    }
}
