import StowageProtocol
import Testing

@testable import StowageHLS

@Suite("Selection and offline plan")
struct SelectionAndPlanTests {
    let masterURL = "http://origin.test/title/master.m3u8"
    let master = """
        #EXTM3U
        #EXT-X-VERSION:4
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,\
        URI="audio/en.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Deutsch",LANGUAGE="de",DEFAULT=NO,URI="audio/de.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",URI="subs/en.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=300000,CODECS="mp4a.40.2",AUDIO="aud"
        audio-only.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=800000,AVERAGE-BANDWIDTH=700000,RESOLUTION=640x360,CODECS="avc1.4d401e,\
        mp4a.40.2",AUDIO="aud",SUBTITLES="subs"
        low/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aud",\
        SUBTITLES="subs"
        mid/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=5000000,RESOLUTION=1920x1080,CODECS="avc1.640028,mp4a.40.2",AUDIO="aud",\
        SUBTITLES="subs"
        high/index.m3u8
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=100000,URI="iframes.m3u8"
        """

    @Test func defaultPicksLowestVariantWithVideo() throws {
        let m = try MasterPlaylist(text: master, url: masterURL)
        let choice = try RenditionSelector.select(m, Selection())
        #expect(choice.variant.uri == "low/index.m3u8")
        #expect(choice.audio.map(\.language) == ["en"])
        #expect(choice.subtitles.isEmpty)
    }

    @Test func bitrateAndHeight() throws {
        let m = try MasterPlaylist(text: master, url: masterURL)
        #expect(try RenditionSelector.select(m, Selection(bitrate: 3_000_000)).variant.uri == "mid/index.m3u8")
        #expect(try RenditionSelector.select(m, Selection(bitrate: 9_000_000)).variant.uri == "high/index.m3u8")
        #expect(
            try RenditionSelector.select(m, Selection(bitrate: 9_000_000, maxHeight: 720)).variant.uri
                == "mid/index.m3u8")
    }

    @Test func audioAndSubtitleLanguages() throws {
        let m = try MasterPlaylist(text: master, url: masterURL)
        let c = try RenditionSelector.select(m, Selection(audio: ["de", "en"], subtitles: ["all"]))
        #expect(c.audio.map(\.language) == ["de", "en"])
        #expect(c.subtitles.count == 1)
        #expect { try RenditionSelector.select(m, Selection(audio: ["fr"])) } throws: {
            ($0 as? PlaylistError)?.kind == .nothingSelectable
        }
    }

    @Test func planRewritesToLocalFilesAndSharesInitSections() throws {
        let m = try MasterPlaylist(text: master, url: masterURL)
        let choice = try RenditionSelector.select(m, Selection(subtitles: ["en"]))
        let video = try MediaPlaylist(
            text: """
                #EXTM3U
                #EXT-X-TARGETDURATION:4
                #EXT-X-MAP:URI="init.mp4"
                #EXTINF:4,
                s1.m4s
                #EXTINF:4,
                s2.m4s?token=a%20b
                #EXT-X-ENDLIST
                """, url: "http://origin.test/title/low/index.m3u8")
        let audio = try MediaPlaylist(
            text: "#EXTM3U\n#EXTINF:4,\n../../../../etc/passwd\n#EXTINF:4,\nhttp://other.test/a2.aac\n#EXT-X-ENDLIST\n",
            url: "http://origin.test/title/audio/en.m3u8")
        let subs = try MediaPlaylist(
            text: "#EXTM3U\n#EXTINF:8,\nen.vtt\n#EXT-X-ENDLIST\n", url: "http://origin.test/title/subs/en.m3u8")
        let plan = try OfflinePlanner.plan(
            master: m, choice: choice,
            inputs: [
                .init(kind: .video, playlist: video, rendition: nil),
                .init(kind: .audio, playlist: audio, rendition: choice.audio[0]),
                .init(kind: .subtitles, playlist: subs, rendition: choice.subtitles[0]),
            ])
        #expect(plan.resources.count == 6)
        #expect(plan.resources.filter { $0.kind == .initSection }.count == 1)
        #expect(plan.resources[2].url == "http://origin.test/title/low/s2.m4s?token=a%20b")
        #expect(plan.resources[3].url == "http://origin.test/etc/passwd")
        for r in plan.resources {
            #expect(!r.localPath.contains(".."))
            #expect(!r.localPath.hasPrefix("/"))
        }
        #expect(plan.renditions[0].playlist.contains("#EXT-X-MAP:URI=\"init-0.mp4\""))
        #expect(!plan.renditions[0].playlist.contains("http"))
        #expect(plan.masterPlaylist.contains("URI=\"audio-en/index.m3u8\""))
        #expect(plan.masterPlaylist.contains("URI=\"subtitles-en/index.m3u8\""))
        #expect(!plan.masterPlaylist.contains("Deutsch"))
        #expect(!plan.masterPlaylist.contains("I-FRAME"))
        #expect(plan.masterPlaylist.hasSuffix("video/index.m3u8\n"))
        let estimate: Int64? = 700_000
        #expect(plan.bytesEstimate == estimate)
    }

    @Test func refusesNonHTTPSchemes() {
        #expect { try URIResolver.resolve("file:///etc/passwd", against: masterURL) } throws: {
            ($0 as? PlaylistError)?.kind == .refusedURI
        }
        #expect { try URIResolver.resolve("javascript:alert(1)", against: masterURL) } throws: {
            ($0 as? PlaylistError)?.kind == .refusedURI
        }
    }

    @Test func masterErrorsNameTheLine() {
        let text = "#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=1x1\nv.m3u8\n"
        #expect { try MasterPlaylist(text: text, url: masterURL) } throws: { ($0 as? PlaylistError)?.line == 2 }
    }
}

@Suite("Key systems and subtitle containers")
struct KeySystemTests {
    @Test func drmKeysStayAsTheyAreAndFMP4SubtitlesAreFMP4() throws {
        let media = try MediaPlaylist(
            text: """
                #EXTM3U
                #EXT-X-TARGETDURATION:4
                #EXT-X-MAP:URI="init.mp4"
                #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://key-id-1",KEYFORMAT="com.apple.streamingkeydelivery",\
                KEYFORMATVERSIONS="1"
                #EXTINF:4,
                s1.m4s
                #EXT-X-ENDLIST
                """, url: "http://o.test/v/index.m3u8")
        let plan = try OfflinePlanner.plan(
            master: nil, choice: nil, inputs: [.init(kind: .video, playlist: media, rendition: nil)])
        #expect(plan.keys.isEmpty)
        #expect(plan.renditions[0].playlist.contains("URI=\"skd://key-id-1\""))
        let subs = try MediaPlaylist(
            text: "#EXTM3U\n#EXT-X-MAP:URI=\"init.mp4\"\n#EXTINF:4,\nsub1.m4s\n#EXT-X-ENDLIST\n",
            url: "http://o.test/s/index.m3u8")
        let subPlan = try OfflinePlanner.plan(
            master: nil, choice: nil, inputs: [.init(kind: .subtitles, playlist: subs, rendition: nil)])
        #expect(subPlan.resources.allSatisfy { $0.container == .fmp4 })
    }
}
