import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Bundles are data, not instructions (issue #40): the attacker's reproductions against two real homes. Each forged
/// bundle is signed with a key nobody trusted and taken in with `--trust-any` (or, for the replay, is the genuine
/// bundle of a trusted box); B refuses it naming the problem, keeps what it had, stays up, and still completes a
/// normal title at the end (docs/bundles.md, "What a bundle cannot decide").
@Suite("Bundle attacks", .serialized)
struct BundleAttackTests {
    let suite = BundleTests()

    /// `stowctl import DIR --trust-any` refused: exit 1, the words in stderr, B's titles and files as they were,
    /// the scheduler still running.
    func refused(
        _ b: Harness, _ dir: URL, _ words: [String], _ extra: [String] = ["--trust-any"],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try suite.snapshot(b)
        let answer = try b.stowctlStreams(["import", dir.path] + extra)
        #expect(answer.status == 1, "\(dir.lastPathComponent) is refused", sourceLocation: sourceLocation)
        for word in words {
            #expect(
                answer.stderr.contains(word), "\(dir.lastPathComponent): \(answer.stderr)",
                sourceLocation: sourceLocation)
        }
        #expect(
            b.isRunning("scheduler"), "the scheduler outlives \(dir.lastPathComponent)", sourceLocation: sourceLocation)
        guard b.isRunning("scheduler") else { return }
        let after = try suite.snapshot(b)
        #expect(
            after.list == before.list && after.titles == before.titles, "\(dir.lastPathComponent) left nothing",
            sourceLocation: sourceLocation)
    }

    func token(of out: String) throws -> String { try #require(out.split(separator: "\n").last.map(String.init)) }

    @Test func aBundleDecidesNothingForTheBoxThatTakesItIn() throws {
        let a = try Harness(name: "bundle-attack-a")
        let b = try Harness(name: "bundle-attack-b")
        try TestMedia.aesExplicitIV(into: a.media, seconds: 4)
        try a.startOrigin()
        try a.startPipeline()
        try b.startPipeline()
        let (keyA, keyB) = (try suite.saveBoxKey(a), try suite.saveBoxKey(b))
        let (submitted, out) = try a.stowctl([
            "submit", a.originURL + "index.m3u8", "--rental", "24h", "--play-count", "5", "--wait",
        ])
        #expect(submitted == 0, "\(out)")
        let tokenA = try token(of: out)
        let forB = a.root.appendingPathComponent("for-b")
        let plain = a.root.appendingPathComponent("plain")
        #expect(try a.stowctl(["export", tokenA, forB.path, "--for-box", keyB.path]).0 == 0)
        #expect(try a.stowctl(["export", tokenA, plain.path]).0 == 0)
        // B holds a title of its own with an id, and a genuine copy of A's title.
        let (own, ownOut) = try b.stowctl(["submit", a.originURL + "index.m3u8", "--id", "1001", "--wait"])
        #expect(own == 0, "\(ownOut)")
        let ownToken = try token(of: ownOut)
        let (copied, copiedOut) = try b.stowctl(["import", forB.path, "--trust", keyA.path])
        #expect(copied == 0, "\(copiedOut)")
        let copyToken = try token(of: copiedOut)
        let copyPlaylist = b.home.appendingPathComponent("titles/\(copyToken)/video/index.m3u8")
        let copyText = try Data(contentsOf: copyPlaylist)
        let forger = BundleForger()

        // 1. Sizes that add up past Int64.max: refused naming files[].size, before the signature would matter.
        let huge = try forger.forge(plain, "huge") { m in
            try m.set(["files", 0, "size"], to: Int64.max)
            try m.set(["files", 1, "size"], to: Int64.max)
        }
        try refused(b, huge, ["files[].size", "(limit)"])

        // 2. A playlist path outside the title folder, or in another title's: refused, and nothing written even
        // when the import is verified (the step that writes offline playlists).
        let outside = "pwned-\(UUID().uuidString).txt"
        let escapes = try forger.forge(plain, "escapes") { m in
            try m.set(["plan", "renditions", 0, "localPath"], to: "../../../../../../../../tmp/\(outside)")
            try m.set(["plan", "renditions", 0, "playlist"], to: "owned\n")
        }
        let other = try forger.forge(plain, "other") { m in
            try m.set(["plan", "renditions", 0, "localPath"], to: "../\(copyToken)/video/index.m3u8")
            try m.set(["plan", "renditions", 0, "playlist"], to: "#EXTM3U\n#EXTINF:2,\nhttp://attacker.test/s.ts\n")
        }
        for dir in [escapes, other] {
            try refused(b, dir, ["plan.renditions[0].localPath", "(path)"])
            // Had it been taken in, `verify` would write the playlist text at the path.
            let (_, list) = try b.stowctl(["list", "--json"])
            let tokens = (try? JSONDecoder().decode([TitleStatus].self, from: Data(list.utf8)))?.map(\.token) ?? []
            for token in tokens { _ = try b.stowctl(["verify", token]) }
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/\(outside)"), "nothing written outside titles/")
        #expect(try Data(contentsOf: copyPlaylist) == copyText, "the other title's playlist is untouched")

        // 3. The reach is the box's, from the source URL: a public source cannot bring the loopback reach that
        // would let `renew` fetch the key from 127.0.0.1.
        let reach = try forger.forge(plain, "reach") { m in
            try m.set(["title", "sourceURL"], to: "http://93.184.216.34/index.m3u8")
            try m.set(["plan", "reach"], to: "loopback")
        }
        let (reached, reachOut) = try b.stowctl(["import", reach.path, "--trust-any"])
        #expect(reached == 0, "\(reachOut)")
        let reachToken = try token(of: reachOut)
        let keysBefore = a.originRequests(containing: "key.bin")
        _ = try b.stowctl(["renew", reachToken])
        try b.waitUntil(timeout: 30, "the renewal of \(reachToken) to end") {
            let (_, text) = try b.stowctl(["license", reachToken, "--json"])
            return !text.contains("\"renewing\" : true") && !text.contains("\"renewing\":true")
        }
        let (_, license) = try b.stowctl(["license", reachToken, "--json"])
        #expect(a.originRequests(containing: "key.bin") == keysBefore, "no key fetched from 127.0.0.1: \(license)")
        #expect(license.contains("loopback"), "the refusal names the address class: \(license)")
        #expect(try b.status(reachToken).playableOffline == false)

        // 4. A --move bundle imports once; terms rewritten and re-signed do not open the sealed keys.
        let moved = a.root.appendingPathComponent("moved")
        #expect(try a.stowctl(["export", tokenA, moved.path, "--for-box", keyB.path, "--move"]).0 == 0)
        let (first, firstOut) = try b.stowctl(["import", moved.path, "--trust", keyA.path])
        #expect(first == 0, "\(firstOut)")
        try refused(b, moved, ["already took in", "(replayed)"], ["--trust", keyA.path])
        let purchase = try forger.forge(forB, "purchase") { m in
            try m.set(["terms", "kind"], to: "purchase")
            try m.set(["terms", "expiresAt"], to: nil)
            try m.set(["terms", "playCountLimit"], to: nil)
        }
        try refused(b, purchase, ["does not open", "(keys)"])

        // 5. Ids and names by submit's rules; an id held here is refused; the bundle's token names nothing here.
        let taken = try forger.forge(plain, "taken") { m in try m.set(["title", "id"], to: "1001") }
        try refused(b, taken, ["title.id '1001' is already title", "(taken)"])
        for (n, id) in ["a/b", "..", "x\ny", String(repeating: "i", count: 500_000)].enumerated() {
            let bad = try forger.forge(plain, "bad-id-\(n)") { m in try m.set(["title", "id"], to: id) }
            try refused(b, bad, ["title.id is 1 to 200 characters", "(malformed)"])
        }
        let longName = try forger.forge(plain, "long-name") { m in
            try m.set(["title", "displayName"], to: String(repeating: "n", count: 2 << 20))
        }
        try refused(b, longName, ["title.displayName is at most 500 characters"])
        let tokenClash = try forger.forge(plain, "token-clash") { m in try m.set(["title", "token"], to: "1001") }
        try refused(b, tokenClash, ["title.token"])
        // `status 1001` names a token: none here is 1001; the title with id 1001 is still B's own.
        #expect(try b.stowctl(["status", "1001"]).0 == 1, "no title took the token 1001")
        let (_, list) = try b.stowctl(["list", "--json"])
        let titles = try JSONDecoder().decode([TitleStatus].self, from: Data(list.utf8))
        #expect(titles.filter { $0.id == "1001" }.map(\.token) == [ownToken], "1001 is still B's own title")
        // A 300 MB bundle.json is refused on its size, without being read (a sparse file: no bytes to read).
        let big = try forger.forge(plain, "big") { _ in }
        let handle = try FileHandle(forWritingTo: big.appendingPathComponent("bundle.json"))
        try handle.truncate(atOffset: 300 << 20)
        try handle.close()
        try refused(b, big, ["64 MiB", "(limit)"])

        // B is still a box that downloads (another URL of the same media: a new title, not title 1001 again).
        let (after, afterOut) = try b.stowctl([
            "submit", a.originURL + "index.m3u8?after=1", "--name", "after", "--wait",
        ])
        #expect(after == 0, "\(afterOut)")
        #expect(try b.status(try token(of: afterOut)).state == .completed)
    }
}
