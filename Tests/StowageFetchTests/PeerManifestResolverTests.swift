import Foundation
import StowageProtocol
import Testing

@testable import StowageFetch

/// The download worker's resolve of a title from a peer box: the peer's manifest becomes the fill plan, or the
/// title is refused with why (the manifest is another box's word).
@Suite("Peer manifest resolve")
struct PeerManifestResolverTests {
    static let url = "http://box-a:8480/titles/film/manifest.json"

    static func manifest(path: String = "v0/seg1.ts", sha256: String? = String(repeating: "ab", count: 32))
        -> PeerManifest
    {
        let planned = PlannedResource(
            kind: .segment, rendition: 0, url: "https://cdn.example/film/seg1.ts", rangeOffset: nil,
            rangeLength: nil, localPath: path, container: .mpegTS, encrypted: false, duration: 4)
        return PeerManifest(
            token: "tok", id: "film", name: "Film", source: "https://cdn.example/film/master.m3u8",
            entry: "master.m3u8",
            plan: ResolvedPlan(masterPlaylist: "#EXTM3U\n", renditions: [], resources: [], bytesEstimate: nil),
            files: [PeerFile(planned: planned, size: 10, sha256: sha256)])
    }

    static func bytes(_ manifest: PeerManifest) throws -> [UInt8] { Array(try JSONEncoder().encode(manifest)) }

    @Test func aGoodManifestIsTheFillPlan() throws {
        let plan = try PeerManifestResolver.plan(Self.bytes(Self.manifest()), from: Self.url)
        #expect(plan == Self.manifest().fillPlan)
        #expect(plan.peer?.source == "https://cdn.example/film/master.m3u8")
    }

    @Test func aManifestThatIsNotOneOrLeadsOutIsRefusedForGood() throws {
        let cases: [([UInt8], String)] = [
            (Array("<html>login</html>".utf8), "is not a title manifest"),
            (try Self.bytes(Self.manifest(path: "../../etc/passwd")), "leaves the title's folder"),
            (try Self.bytes(Self.manifest(sha256: "not-a-hash")), "is not a SHA-256"),
        ]
        for (bytes, why) in cases {
            do {
                _ = try PeerManifestResolver.plan(bytes, from: Self.url)
                Issue.record("accepted a manifest that \(why)")
            } catch {
                #expect(error.code == .refused && !error.retryable, "\(error)")
                #expect(error.message.contains(why), "\(error.message)")
            }
        }
    }
}
