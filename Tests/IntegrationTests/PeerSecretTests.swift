import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// The peer secret goes to the peer's own origin (scheme, host, port) only: the origin's access log records which
/// credentials each request carried (`<credentials>`, the 8th field: `-` for none), and no request of the filling
/// box may carry one there, whether it reached the origin by a redirect the peer answered or as the fallback for a
/// file the peer served wrong (``PeerFillTests``).
@Suite("The peer secret stays with the peer", .serialized)
struct PeerSecretTests {
    /// The origin's log lines after the first `mark` for requests of `path` (query ignored).
    static func originLines(_ h: Harness, path: String, after mark: Int) -> [[Substring]] {
        h.originLog().dropFirst(mark).filter { $0.count > 7 && $0[2].split(separator: "?")[0] == path }
    }

    /// A peer that answers one file with a redirect to the origin (302 to the origin's URL of that file): B follows
    /// it and keeps the file (its hash is the manifest's), and the origin sees that request without the secret
    /// that went to the peer with it. The peer here is `stowage-origin` serving A's manifest and A's copy under
    /// `titles/film/` (A's gateway never redirects), so the redirect is the peer's own answer.
    @Test func aRedirectThePeerAnswersReachesTheOriginWithoutThePeerSecret() throws {
        let a = try Harness(name: "peer-redirect-a")
        let b = try Harness(name: "peer-redirect-b")
        try a.makeSample(seconds: 6)
        try a.startOrigin()
        try a.startPipeline()
        let (code, out) = try a.stowctl(["submit", a.originURL + "master.m3u8", "--id", "film", "--wait"])
        #expect(code == 0, "\(out)")
        let tokenA = String(try #require(out.split(separator: "\n").last))
        let gateway = try a.startGateway(address: "127.0.0.1")
        let secret = try PeerFillTests.addPeer(a, "box-b")
        let manifest = try PeerFillTests.manifest(gateway: gateway, id: "film", secret: secret, in: a)

        // The peer's folder: A's copy and A's manifest as its gateway served them.
        let served = b.root.appendingPathComponent("peer/titles/film")
        try FileManager.default.createDirectory(
            at: served.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: a.home.appendingPathComponent("titles/\(tokenA)"), to: served)
        try JSONEncoder().encode(manifest).write(to: served.appendingPathComponent("manifest.json"))
        let moved = try #require(manifest.files.first { $0.planned.localPath.hasSuffix(".ts") })
        let originPath = "/" + PeerFillTests.originPath(moved)
        let peer = try b.startOrigin(
            named: "peer", root: b.root.appendingPathComponent("peer"),
            extra: ["--redirect", "/titles/film/\(moved.planned.localPath)=\(a.originURL)\(originPath.dropFirst())"])
        let mark = a.originLog().count

        try b.startPipeline()
        let secretFile = b.root.appendingPathComponent("peer.secret")
        try "\(secret)\n".write(to: secretFile, atomically: true, encoding: .utf8)
        let peerURL = String(peer.url.dropLast())
        let (submitted, said) = try b.stowctl([
            "submit", "--from-peer", peerURL, "--peer-secret", secretFile.path, "film",
        ])
        #expect(submitted == 0, "\(said)")
        let token = String(try #require(said.split(separator: "\n").last))
        let final = try b.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.filesFromOrigin == 0, "the redirected file is the peer's answer, its hash the manifest's")

        // The peer was asked with the secret, the redirected file too; the origin saw that file, without it.
        let redirected = peer.requests().map { $0.split(separator: " ") }.filter {
            $0.count > 7 && $0[2] == "/titles/film/\(moved.planned.localPath)"
        }
        #expect(
            !redirected.isEmpty && redirected.allSatisfy { $0[3] == "302" && $0[7] == "authorization" },
            "the peer answered the file with a redirect, asked with the secret: \(redirected)")
        let atOrigin = Self.originLines(a, path: originPath, after: mark)
        #expect(!atOrigin.isEmpty, "B followed the redirect to the origin")
        #expect(atOrigin.allSatisfy { $0[7] == "-" }, "the origin got no credentials: \(atOrigin.map { $0[7] })")
        let anyCarried = a.originLog().dropFirst(mark).filter { $0.count > 7 && $0[7] != "-" }
        #expect(anyCarried.isEmpty, "no request at the origin carried credentials: \(anyCarried)")
        let onB = try PeerFillTests.files(b.home.appendingPathComponent("titles/\(token)"))
        #expect(
            onB[moved.planned.localPath]
                == (try Data(contentsOf: served.appendingPathComponent(moved.planned.localPath))))
    }
}
