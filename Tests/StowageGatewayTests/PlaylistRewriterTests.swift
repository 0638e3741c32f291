import Testing

@testable import StowagePlayback

@Suite("Playlist rewriting")
struct PlaylistRewriterTests {
    let media = """
        #EXTM3U
        #EXT-X-KEY:METHOD=AES-128,URI="/keys/0",IV=0x01
        #EXT-X-MAP:URI="init.mp4"
        #EXTINF:4.0,
        0001.m4s
        #EXTINF:4.0,
        0002.m4s?part=1
        #EXT-X-ENDLIST
        """

    @Test func identityAtTheRoot() {
        let rewriter = PlaylistRewriter()
        #expect(rewriter.isIdentity)
        #expect(rewriter.rewrite(media) == media)
    }

    @Test func keyURIsGetThePrefix() {
        let out = PlaylistRewriter(prefix: "/titles/abc/").rewrite(media)
        #expect(out.contains("URI=\"/titles/abc/keys/0\""))
        #expect(out.contains("URI=\"init.mp4\""), "relative URIs stay relative")
        #expect(out.contains("\n0001.m4s\n"))
    }

    @Test func queryGoesIntoEveryURI() {
        let out = PlaylistRewriter(prefix: "/titles/abc", query: "dev=tv&exp=10&sig=ab").rewrite(media)
        #expect(out.contains("URI=\"/titles/abc/keys/0?dev=tv&exp=10&sig=ab\""))
        #expect(out.contains("URI=\"init.mp4?dev=tv&exp=10&sig=ab\""))
        #expect(out.contains("\n0001.m4s?dev=tv&exp=10&sig=ab\n"))
        #expect(out.contains("\n0002.m4s?part=1&dev=tv&exp=10&sig=ab\n"))
        #expect(out.contains("#EXT-X-ENDLIST") && !out.contains("ENDLIST?"))
    }

    @Test func masterPlaylistsAndOtherHostsAndCRLF() {
        let master =
            "#EXTM3U\r\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",URI=\"audio/index.m3u8\"\r\n"
            + "#EXT-X-STREAM-INF:BANDWIDTH=1\r\nvideo/index.m3u8\r\n#EXT-X-SESSION-KEY:URI=\"https://x/k\"\r\n"
        let out = PlaylistRewriter(query: "sig=1").rewrite(master)
        #expect(out.contains("URI=\"audio/index.m3u8?sig=1\"\r\n"))
        #expect(out.contains("\r\nvideo/index.m3u8?sig=1\r\n"))
        #expect(out.contains("URI=\"https://x/k\""), "a signature never goes to another host")
    }

    @Test func mpdGetsTheQueryOnLocalURLsAndTheClearKeyEndpointUnderThePrefix() {
        let mpd = """
            <MPD><Period><AdaptationSet>
            <ContentProtection schemeIdUri="urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e">\
            <clearkey:Laurl>/clearkey</clearkey:Laurl></ContentProtection>
            <Representation id="0" bandwidth="1"><BaseURL>https://cdn.test/x/</BaseURL>
            <SegmentTemplate initialization="p0/v/init.mp4" media="p0/v/seg-$Number%05d$.m4s" startNumber="1"/>
            </Representation></AdaptationSet></Period></MPD>
            """
        #expect(PlaylistRewriter().rewriteMPD(mpd) == mpd)
        let out = PlaylistRewriter(prefix: "/titles/abc/", query: "dev=t&exp=9&sig=s").rewriteMPD(mpd)
        #expect(out.contains(">/titles/abc/clearkey?dev=t&amp;exp=9&amp;sig=s<"), "\(out)")
        #expect(out.contains("initialization=\"p0/v/init.mp4?dev=t&amp;exp=9&amp;sig=s\""))
        #expect(out.contains("media=\"p0/v/seg-$Number%05d$.m4s?dev=t&amp;exp=9&amp;sig=s\""))
        #expect(out.contains("<BaseURL>https://cdn.test/x/</BaseURL>"), "another host's URL is left alone")
        #expect(out.contains("<Representation id=\"0\" bandwidth=\"1\">"), "nothing else changes")
    }

    /// A segment-encrypted MPD names its keys `keyUriTemplate="/keys/N"`: under the gateway's prefix, with the
    /// signed query, like an HLS playlist's `URI="/keys/N"`; a key URL of another host is left alone.
    @Test func mpdSegmentEncryptionKeysGoUnderThePrefixWithTheQuery() {
        let mpd = """
            <MPD><Period><AdaptationSet><ContentProtection schemeIdUri="urn:mpeg:dash:sea:2012">
            <sea:CryptoPeriod numSegments="2" keyUriTemplate="/keys/0"/>
            <sea:CryptoPeriod IV="0x00000000000000000000000000000001" keyUriTemplate="https://k.test/k?a=1&amp;b=2"/>
            </ContentProtection></AdaptationSet></Period></MPD>
            """
        #expect(PlaylistRewriter().rewriteMPD(mpd) == mpd, "stowctl play serves it as stored")
        let prefixed = PlaylistRewriter(prefix: "/titles/abc/").rewriteMPD(mpd)
        #expect(prefixed.contains("keyUriTemplate=\"/titles/abc/keys/0\""), "\(prefixed)")
        let signed = PlaylistRewriter(prefix: "/titles/abc/", query: "dev=t&exp=9&sig=s").rewriteMPD(mpd)
        #expect(signed.contains("keyUriTemplate=\"/titles/abc/keys/0?dev=t&amp;exp=9&amp;sig=s\""), "\(signed)")
        #expect(signed.contains("keyUriTemplate=\"https://k.test/k?a=1&amp;b=2\""), "another host's is left alone")
    }
}
