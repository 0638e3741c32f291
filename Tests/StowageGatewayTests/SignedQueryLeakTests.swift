import Testing

@testable import StowagePlayback

/// The gateway's signed query goes only on URIs that stay inside the title, in playlists and in MPDs.
@Suite("Signed queries never leave the title")
struct SignedQueryLeakTests {
    let rewriter = PlaylistRewriter(prefix: "/titles/lecture/", query: "dev=tablet&exp=1&sig=ab")

    @Test func onlyURIsInsideTheTitleAreSigned() {
        let outside = [
            "//other.example/x.ts", "\\\\other\\x.ts", "a\\..\\..\\x.ts", "a%5C..%5Cx.ts", "http://other.example/x.ts",
            "HTTPS://other.example/x.ts", "data:text/plain,x", "/etc/passwd", "../x.ts", "v/../../x.ts",
            "%2e%2e/x.ts", " //other.example/x.ts", "ht\ttps://other.example/x.ts", "\u{1}//other.example/x.ts",
        ]
        for uri in outside {
            #expect(rewriter.rewriteURI(uri, at: "master.m3u8") == uri, "\(uri) must not be signed")
        }
        #expect(rewriter.rewriteURI("../audio/a.ts", at: "video/index.m3u8") == "../audio/a.ts?dev=tablet&exp=1&sig=ab")
        #expect(rewriter.rewriteURI("../../a.ts", at: "video/index.m3u8") == "../../a.ts")
        #expect(rewriter.rewriteURI("seg-1.ts", at: "video/index.m3u8") == "seg-1.ts?dev=tablet&exp=1&sig=ab")
        #expect(rewriter.rewriteURI("/keys/0") == "/titles/lecture/keys/0?dev=tablet&exp=1&sig=ab")
        // Under `stowctl play` the whole server is the title.
        let play = PlaylistRewriter(prefix: "/", query: "t=1")
        #expect(play.rewriteURI("/video/a.ts") == "/video/a.ts?t=1")
        #expect(play.rewriteURI("//other.example/a.ts") == "//other.example/a.ts")
    }

    @Test func aCraftedPlaylistCarriesNoSignatureOffTheBox() {
        let text = """
            #EXTM3U
            #EXT-X-SESSION-DATA:DATA-ID="x",URI="//other.example/data.json"
            #EXT-X-MAP:URI="\\\\other\\init.mp4"
            #EXT-X-KEY:METHOD=AES-128,URI="/keys/0"
            #EXTINF:4,
            //other.example/s1.ts
            #EXTINF:4,
            s2.ts
            #EXT-X-ENDLIST
            """
        let served = rewriter.rewrite(text, at: "video/index.m3u8")
        for line in served.split(separator: "\n") where line.contains("other") {
            #expect(!line.contains("sig="), "\(line)")
        }
        #expect(served.contains("s2.ts?dev=tablet&exp=1&sig=ab"))
        #expect(served.contains("URI=\"/titles/lecture/keys/0?dev=tablet&exp=1&sig=ab\""))
    }

    @Test func mpdURLsAreSignedOnlyInsideTheTitle() {
        let mpd = """
            <MPD><BaseURL>//other.example/</BaseURL><Period><AdaptationSet>
            <SegmentTemplate media="v/seg-$Number$.m4s" initialization="https://other.example/init.mp4"/>
            <Representation id="a"><BaseURL>\\\\other\\a\\</BaseURL></Representation>
            <ContentProtection><dashif:Laurl>/clearkey</dashif:Laurl></ContentProtection>
            </AdaptationSet></Period></MPD>
            """
        let served = rewriter.rewriteMPD(mpd, at: "manifest.mpd")
        #expect(served.contains("<BaseURL>//other.example/</BaseURL>"))
        #expect(served.contains("initialization=\"https://other.example/init.mp4\""))
        #expect(served.contains("<BaseURL>\\\\other\\a\\</BaseURL>"))
        #expect(served.contains("media=\"v/seg-$Number$.m4s?dev=tablet&amp;exp=1&amp;sig=ab\""))
        #expect(served.contains(">/titles/lecture/clearkey?dev=tablet&amp;exp=1&amp;sig=ab<"))
    }
}
