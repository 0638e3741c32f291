import StowageProtocol
import Testing

@testable import StowageHLS

/// An offline copy names only its own files: tags Stowage does not fetch for are dropped when they name a file
/// or an address off the box, whatever form the address takes.
@Suite("Offline playlists keep no link off the box")
struct OfflineLeakTests {
    @Test func tagsThatNameFilesOrHostsAreDropped() {
        for line in [
            #"#EXT-X-SESSION-DATA:DATA-ID="com.example.lyrics",URI="http://other.example/lyrics.json""#,
            #"#EXT-X-SESSION-DATA:DATA-ID="com.example.x",URI="//other.example/x.json""#,
            #"#EXT-X-SESSION-DATA:DATA-ID="com.example.x",URI="\\other\x.json""#,
            #"#EXT-X-SESSION-DATA:DATA-ID="com.example.x",URI="local.json""#,
            #"#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part9.m4s""#,
            #"#EXT-X-CONTENT-STEERING:SERVER-URI="https://steer.example/s",PATHWAY-ID="a""#,
            #"#EXT-X-DATERANGE:ID="ad",START-DATE="2026-01-01T00:00:00Z",X-ASSET-LIST="https://ads.example/l""#,
            #"#EXT-X-SESSION-DATA:DATA-ID="com.example.t",VALUE="//tracker.example/p""#,
            #"#EXT-X-SESSION-DATA:DATA-ID="com.example.t",VALUE="data:text/plain,x""#,
            #"#EXT-X-DATERANGE:ID="ad",START-DATE="2026-01-01T00:00:00Z",X-ASSET-LIST=" //ads.example/l""#,
            "#EXT-X-DATERANGE:ID=\"ad\",START-DATE=\"2026-01-01T00:00:00Z\",X-ASSET-LIST=\"ht\ttps://ads.example\"",
        ] {
            #expect(!OfflineTags.mayCopy(line), "\(line)")
        }
        for line in [
            #"#EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="A Lecture",LANGUAGE="en""#,
            "#EXT-X-VERSION:7", "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z", "#EXT-X-DISCONTINUITY",
            #"#EXT-X-DATERANGE:ID="c1",START-DATE="2026-01-01T00:00:00Z",X-TITLE="Chapter 1""#,
        ] {
            #expect(OfflineTags.mayCopy(line), "\(line)")
        }
    }

    @Test func aCraftedTitlesOfflinePlaylistsNameNoOtherHost() throws {
        let masterText = """
            #EXTM3U
            #EXT-X-VERSION:4
            #EXT-X-SESSION-DATA:DATA-ID="com.example.lyrics",URI="http://other.example/lyrics.json"
            #EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="Kept"
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360
            low/index.m3u8
            """
        let m = try MasterPlaylist(text: masterText, url: "http://origin.test/t/master.m3u8")
        let choice = try RenditionSelector.select(m, Selection())
        let video = try MediaPlaylist(
            text: """
                #EXTM3U
                #EXT-X-TARGETDURATION:4
                #EXT-X-RENDITION-REPORT:URI="//other.example/high.m3u8",LAST-MSN=3
                #EXTINF:4,
                //other.example/s1.ts
                #EXTINF:4,
                \\\\other\\s2.ts
                #EXTINF:4,
                http://other.example/s3.ts
                #EXT-X-ENDLIST
                """, url: "http://origin.test/t/low/index.m3u8")
        let plan = try OfflinePlanner.plan(
            master: m, choice: choice, inputs: [.init(kind: .video, playlist: video, rendition: nil)])
        for text in [plan.masterPlaylist] + plan.renditions.map(\.playlist) {
            #expect(!text.contains("other"), "\(text)")
            #expect(!text.contains("//") && !text.contains("\\"), "\(text)")
        }
        #expect(plan.masterPlaylist.contains("VALUE=\"Kept\""))
        #expect(plan.resources.count == 3, "every segment is fetched from its source and stored locally")
    }
}
