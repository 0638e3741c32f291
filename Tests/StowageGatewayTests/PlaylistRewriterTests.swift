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
}
