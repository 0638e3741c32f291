import StowageProtocol
import Testing

@testable import StowageHLS

/// `--video-codec`, `--video-range`, `--audio-codec`, `--channels`, `--audio-only` on a master playlist.
@Suite("HLS selection by what a device decodes")
struct CodecSelectionTests {
    let url = "http://origin.test/title/master.m3u8"
    /// A mixed ladder: AVC and HEVC at two heights, one HEVC variant flagged PQ; AAC stereo and AC-3 5.1 audio
    /// groups; an HEVC variant is the cheapest, so the default (lowest) pick is HEVC.
    let mixed = """
        #EXTM3U
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,CHANNELS="2",URI="a/en.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Deutsch",LANGUAGE="de",CHANNELS="2",URI="a/de.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="ac3",NAME="English 5.1",LANGUAGE="en",DEFAULT=YES,CHANNELS="6",\
        URI="a/en51.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=640x360,CODECS="hvc1.1.6.L90.B0,mp4a.40.2",AUDIO="aac"
        hevc360/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=700000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aac"
        avc360/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=1500000,RESOLUTION=1280x720,CODECS="hvc1.2.4.L93.B0,mp4a.40.2",AUDIO="aac",\
        VIDEO-RANGE=PQ
        hevc720pq/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2500000,RESOLUTION=1280x720,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aac",\
        VIDEO-RANGE=SDR
        avc720/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2900000,RESOLUTION=1280x720,CODECS="avc1.4d401f,ac-3",AUDIO="ac3"
        avc720ac3/index.m3u8
        """

    func pick(_ selection: Selection) throws -> RenditionSelector.Choice {
        try RenditionSelector.select(try MasterPlaylist(text: mixed, url: url), selection)
    }

    func refusal(_ selection: Selection) -> PlaylistError? {
        do {
            _ = try pick(selection)
            return nil
        } catch { return error as? PlaylistError }
    }

    @Test func withoutTheOptionsNothingChanges() throws {
        #expect(try pick(Selection()).variant.uri == "hevc360/index.m3u8")
        #expect(try pick(Selection(bitrate: 2_600_000)).variant.uri == "avc720/index.m3u8")
    }

    @Test func avcNeverPicksHEVCWhateverTheBitrate() throws {
        for bitrate in [nil, 100, 500_000, 1_600_000, 2_600_000, 10_000_000] {
            let variant = try pick(Selection(bitrate: bitrate, videoCodec: [.avc])).variant
            #expect(variant.videoFamily == .avc, "bitrate \(String(describing: bitrate)) picked \(variant.uri)")
        }
        #expect(try pick(Selection(videoCodec: [.avc])).variant.uri == "avc360/index.m3u8")
        #expect(try pick(Selection(bitrate: 2_600_000, videoCodec: [.avc])).variant.uri == "avc720/index.m3u8")
    }

    @Test func theFirstCodecOnOfferInPreferenceOrderWins() throws {
        #expect(try pick(Selection(videoCodec: [.hevc, .avc])).variant.uri == "hevc360/index.m3u8")
        #expect(try pick(Selection(videoCodec: [.av1, .avc, .hevc])).variant.uri == "avc360/index.m3u8")
        #expect(
            try pick(Selection(bitrate: 9_000_000, videoCodec: [.av1, .hevc])).variant.uri == "hevc720pq/index.m3u8")
    }

    @Test func videoRange() throws {
        #expect(try pick(Selection(bitrate: 9_000_000, videoRange: .sdr)).variant.uri == "avc720ac3/index.m3u8")
        #expect(try pick(Selection(videoRange: .pq)).variant.uri == "hevc720pq/index.m3u8")
        let error = refusal(Selection(videoCodec: [.avc], videoRange: .pq))
        #expect(error?.kind == .nothingSelectable)
        #expect(error?.message.contains("--video-codec avc --video-range pq") == true)
        #expect(error?.message.contains("hevc pq 1280x720") == true)
    }

    @Test func channelsAndAudioCodec() throws {
        let stereo = try pick(Selection(bitrate: 9_000_000, channels: 2))
        #expect(stereo.variant.uri == "avc720/index.m3u8")
        #expect(stereo.audio.map(\.uri) == ["a/en.m3u8"])
        let surround = try pick(Selection(bitrate: 9_000_000, audioCodec: [.ac3, .aac]))
        #expect(surround.variant.uri == "avc720ac3/index.m3u8")
        #expect(surround.audio.map(\.uri) == ["a/en51.m3u8"])
        let error = refusal(Selection(audioCodec: [.ec3]))
        #expect(error?.kind == .nothingSelectable)
        #expect(error?.message.contains("on offer: aac 2ch") == true)
        #expect(error?.message.contains("ac-3 6ch") == true)
    }

    @Test func audioOnlyFromAnAudioOnlyVariant() throws {
        let text = mixed + "\n#EXT-X-STREAM-INF:BANDWIDTH=130000,CODECS=\"mp4a.40.2\",AUDIO=\"aac\"\nradio.m3u8\n"
        let choice = try RenditionSelector.select(try MasterPlaylist(text: text, url: url), Selection(audioOnly: true))
        #expect(choice.variant.uri == "radio.m3u8")
        #expect(!choice.variant.hasVideo)
    }

    @Test func audioOnlyFromAnAudioRenditionFetchesNoVideo() throws {
        let choice = try pick(Selection(audio: ["de"], audioOnly: true))
        #expect(choice.variant.uri == "a/de.m3u8")
        #expect(choice.variant.resolution == nil)
        #expect(choice.variant.codecs == "mp4a.40.2")
        #expect(choice.audio.isEmpty)
        let master = try MasterPlaylist(text: mixed, url: url)
        let audio = try MediaPlaylist(text: Self.media, url: "http://origin.test/title/a/de.m3u8")
        let plan = try OfflinePlanner.plan(
            master: master, choice: choice, inputs: [.init(kind: .video, playlist: audio, rendition: nil)])
        #expect(!plan.resources.contains { $0.url.contains("hevc") || $0.url.contains("avc") })
    }

    @Test func audioOnlyWithMuxedAudioIsRefusedNamingTheOffer() throws {
        let muxed = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=700000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2"
            low.m3u8
            """
        #expect {
            try RenditionSelector.select(try MasterPlaylist(text: muxed, url: url), Selection(audioOnly: true))
        } throws: {
            let e = $0 as? PlaylistError
            return e?.kind == .nothingSelectable && e?.message.contains("avc sdr 640x360") == true
        }
    }

    static let media = """
        #EXTM3U
        #EXT-X-TARGETDURATION:4
        #EXTINF:4.0,
        seg0.aac
        #EXTINF:4.0,
        seg1.aac
        #EXT-X-ENDLIST
        """
}
