import Foundation
import Testing

@testable import StowageProtocol

@Suite("Peer manifest")
struct PeerManifestTests {
    static let hash = String(repeating: "0123456789abcdef", count: 4)

    static func manifest(paths: [String] = ["v0/seg1.ts", "v0/seg2.ts"], entry: String = "master.m3u8")
        -> PeerManifest
    {
        let files = paths.enumerated().map { i, path in
            var planned = PlannedResource(
                kind: .segment, rendition: 0, url: "https://cdn.example/t/\(i).ts", rangeOffset: 100,
                rangeLength: 50, localPath: path, container: .mpegTS, encrypted: true, duration: 4)
            planned.cipher = SegmentCipher(key: 0, iv: "00")
            return PeerFile(planned: planned, size: i == 0 ? 50 : nil, sha256: i == 0 ? hash : nil)
        }
        let plan = ResolvedPlan(
            masterPlaylist: "#EXTM3U\n",
            renditions: [
                PlannedRendition(
                    kind: .video, sourceURL: "https://cdn.example/t/v0.m3u8", localPath: "v0/index.m3u8",
                    playlist: "#EXTM3U\n")
            ],
            resources: [], bytesEstimate: 100, keys: [PlannedKey(uri: "https://keys.example/k0", method: "AES-128")],
            manifestName: entry == "master.m3u8" ? nil : entry)
        return PeerManifest(
            token: "tok", id: "movie", name: "Movie", source: "https://cdn.example/t/master.m3u8", entry: entry,
            plan: plan, files: files)
    }

    @Test func theReceivingBoxPlansByThePeersPlan() throws {
        let manifest = Self.manifest()
        let decoded = try JSONDecoder().decode(PeerManifest.self, from: JSONEncoder().encode(manifest))
        #expect(decoded == manifest)
        #expect(decoded.problem == nil)
        let plan = decoded.plan
        #expect(plan.resources == manifest.files.map(\.planned), "origin URLs and ranges kept, for the fallback")
        #expect(plan.keys.map(\.uri) == ["https://keys.example/k0"], "keys by their server, never the keys")
        #expect(plan.manifestName == nil && plan.masterPlaylist == "#EXTM3U\n")
        #expect(Self.manifest(entry: "manifest.mpd").plan.manifestName == "manifest.mpd")
    }

    @Test func aManifestThatLeadsOutOfTheTitleIsRefused() {
        #expect(Self.manifest(paths: ["../../etc/passwd"]).problem?.contains("leaves the title's folder") == true)
        #expect(Self.manifest(paths: ["/etc/passwd"]).problem != nil)
        #expect(Self.manifest(paths: []).problem == "the manifest lists no files")
        #expect(Self.manifest(entry: "../x").problem != nil)
        var badHash = Self.manifest()
        badHash.files[0].sha256 = "zz"
        #expect(badHash.problem?.contains("is not a SHA-256") == true)
        var newer = Self.manifest()
        newer.format = 2
        #expect(newer.problem?.contains("format 2") == true)
        var local = Self.manifest()
        local.source = "file:///etc/passwd"
        #expect(local.problem?.contains("not an http(s) URL") == true)
    }

    @Test func aPeersFileURLsAndSecretStayOnItsGateway() {
        let peer = PeerSource(url: "http://box-a:8480/", id: "match 42", secret: "s3cret")
        #expect(peer.url == "http://box-a:8480")
        #expect(peer.manifestURL == "http://box-a:8480/titles/match%2042/manifest.json")
        #expect(peer.fileURL("v0/seg#1.ts") == "http://box-a:8480/titles/match%2042/v0/seg%231.ts")
        #expect(peer.authorization == Header(name: "Authorization", value: "Bearer s3cret"))
        #expect(peer.problem == nil)
        #expect(PeerSource(url: "http://box-a:8480/titles", id: "x", secret: "s").problem != nil)
        #expect(PeerSource(url: "ftp://box-a", id: "x", secret: "s").problem != nil)
        #expect(PeerSource(url: "http://box-a", id: "..", secret: "s").problem != nil)
        #expect(PeerSource(url: "http://box-a", id: "x", secret: "").problem == "the peer secret is empty")
    }

    @Test func theFillPlanCarriesThePeersHashesThroughThePackedPlan() throws {
        var manifest = Self.manifest(paths: ["v0/seg1.ts", "v0/seg2.ts", "v0/seg3.ts"])
        manifest.files[2].sha256 = Self.hash.uppercased()
        let plan = manifest.fillPlan
        #expect(plan.resources.map(\.peerSHA256) == [Self.hash, nil, Self.hash], "held files only, lowercased")
        #expect(plan.peer == PeerTitle(source: "https://cdn.example/t/master.m3u8", name: "Movie"))
        // The plan travels packed from the download worker to the scheduler: the hashes go with it.
        let decoded = try JSONDecoder().decode(ResolvedPlan.self, from: JSONEncoder().encode(plan))
        #expect(decoded == plan)
        #expect(decoded.resources.map(\.peerSHA256) == [Self.hash, nil, Self.hash])
        #expect(decoded.resources.map(\.cipher) == plan.resources.map(\.cipher))
        // A resolve of an origin's playlist has neither.
        let direct = try JSONDecoder().decode(ResolvedPlan.self, from: JSONEncoder().encode(manifest.plan))
        #expect(direct.peer == nil && direct.resources.allSatisfy { $0.peerSHA256 == nil })
    }
}
