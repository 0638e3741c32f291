import StowageProtocol
import Testing

@testable import StowageHLS

/// Content steering's pathways and redundant variants: which copy a title is planned on, and the alternates its
/// files get from the others.
@Suite("HLS pathways and redundant variants")
struct PathwayTests {
    let url = "http://main.test/title/master.m3u8"

    let steered = """
        #EXTM3U
        #EXT-X-CONTENT-STEERING:SERVER-URI="steer.json",PATHWAY-ID="CDN-B"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud-a",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="http://a.test/en.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud-b",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="http://b.test/en.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=640x360,AUDIO="aud-a",PATHWAY-ID="CDN-A"
        http://a.test/360/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=1280x720,AUDIO="aud-a",PATHWAY-ID="CDN-A"
        http://a.test/720/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=640x360,AUDIO="aud-b",PATHWAY-ID="CDN-B"
        http://b.test/360/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=1280x720,AUDIO="aud-b",PATHWAY-ID="CDN-B"
        http://b.test/720/index.m3u8
        """

    let redundant = """
        #EXTM3U
        #EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=640x360
        http://a.test/360/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=1280x720
        http://a.test/720/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=640x360
        http://b.test:8080/360/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=1280x720
        http://b.test:8080/720/index.m3u8
        """

    @Test func steeringGroupsByPathwayAndStartsWhereTheTagSays() throws {
        let master = try MasterPlaylist(text: steered, url: url)
        #expect(master.steering?.serverURI == "http://main.test/title/steer.json")
        let pathways = HLSPathways(master)
        #expect(pathways.pathways.map(\.name) == ["CDN-B", "CDN-A"])
        #expect(
            pathways.pathways[0].variants.map(\.uri) == [
                "http://b.test/360/index.m3u8", "http://b.test/720/index.m3u8",
            ])
        // The steering server's priority wins over the tag's; a name it gives that the master lacks is ignored.
        let served = HLSPathways(master, priority: ["CDN-C", "CDN-A", "CDN-B"])
        #expect(served.pathways.map(\.name) == ["CDN-A", "CDN-B"])
    }

    @Test func selectionSeesOnePathwayAndItsTwinsAreFound() throws {
        let master = try MasterPlaylist(text: steered, url: url)
        let pathways = HLSPathways(master)
        let mine = master.keeping(pathways.pathways[0].variants, pathway: pathways.pathways[0].name)
        let choice = try RenditionSelector.select(mine, Selection(bitrate: 1_000_000))
        #expect(choice.variant.uri == "http://b.test/720/index.m3u8")
        #expect(choice.audio.map(\.uri) == ["http://b.test/en.m3u8"])
        let twin = try #require(pathways.equivalent(of: choice.variant, in: pathways.pathways[1]))
        #expect(twin.uri == "http://a.test/720/index.m3u8")
        let audio = HLSPathways.equivalent(of: choice.audio[0], for: twin, in: master)
        #expect(audio?.uri == "http://a.test/en.m3u8")
    }

    @Test func redundantVariantsArePathwaysNamedByTheirHosts() throws {
        let pathways = HLSPathways(try MasterPlaylist(text: redundant, url: url))
        #expect(pathways.pathways.map(\.name) == ["a.test", "b.test:8080"])
        #expect(pathways.pathways.map { $0.variants.count } == [2, 2])
        let single = HLSPathways(
            try MasterPlaylist(
                text: redundant.components(
                    separatedBy: "#EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=640x360\nhttp://b"
                ).first!, url: url))
        #expect(!single.hasAlternatives)
    }

    func media(_ base: String, durations: [Double] = [4, 4, 2], map: Bool = true) throws -> MediaPlaylist {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        if map { text += "#EXT-X-MAP:URI=\"init.mp4\"\n" }
        for (n, d) in durations.enumerated() { text += "#EXTINF:\(d),\nseg\(n).m4s\n" }
        return try MediaPlaylist(text: text + "#EXT-X-ENDLIST\n", url: "\(base)/index.m3u8")
    }

    @Test func filesPairByPositionAndTheirURLsBecomeAlternatesInPathwayOrder() throws {
        let a = try media("http://a.test/720"), b = try media("http://b.test/v/720"), c = try media("http://c.test/720")
        let ab = try #require(PathwayAlternates.pairs(a, b))
        #expect(ab[.init(url: "http://a.test/720/init.mp4", offset: nil)] == "http://b.test/v/720/init.mp4")
        #expect(ab[.init(url: "http://a.test/720/seg2.m4s", offset: nil)] == "http://b.test/v/720/seg2.m4s")
        var plan = ResolvedPlan(
            masterPlaylist: "", renditions: [],
            resources: [
                PlannedResource(
                    kind: .segment, rendition: 0, url: "http://a.test/720/seg1.m4s", rangeOffset: nil, rangeLength: nil,
                    localPath: "v/seg1.m4s", container: .fmp4, encrypted: false, duration: 4)
            ], bytesEstimate: nil)
        PathwayAlternates.apply([ab, try #require(PathwayAlternates.pairs(a, c))], to: &plan)
        #expect(plan.resources[0].alternates == ["http://b.test/v/720/seg1.m4s", "http://c.test/720/seg1.m4s"])
    }

    @Test func aCopyThatIsNotTheSameMediaIsNoAlternate() throws {
        let a = try media("http://a.test/720")
        #expect(PathwayAlternates.pairs(a, try media("http://b.test/720", durations: [4, 4])) == nil)
        #expect(PathwayAlternates.pairs(a, try media("http://b.test/720", durations: [4, 4, 4])) == nil)
        #expect(PathwayAlternates.pairs(a, try media("http://b.test/720", map: false)) == nil)
    }

    @Test func aPathwayIsNamedByTheOriginThatServed() {
        let pathways = [
            PlannedPathway(name: "CDN-A", origins: ["http://a.test"]),
            PlannedPathway(name: "CDN-B", origins: ["https://b.test:8443"]),
        ]
        #expect(PlannedPathway.name(serving: "https://B.test:8443/x/seg.ts", in: pathways) == "CDN-B")
        #expect(PlannedPathway.name(serving: "http://a.test/seg.ts", in: pathways) == "CDN-A")
        #expect(PlannedPathway.name(serving: "http://elsewhere.test:81/seg.ts", in: pathways) == "elsewhere.test:81")
    }
}
