import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Peer fill between two boxes on this machine (two homes, two pipelines, two gateways): box B makes a title from
/// box A's gateway, every file checked against A's SHA-256, a file A serves wrong taken from the origin instead.
@Suite("Peer fill between two boxes", .serialized)
struct PeerFillTests {
    /// Box A with a completed multi-rendition AES-128 (rotating keys) HLS title `film`, its gateway, and a peer
    /// secret for B (in a file of B's).
    struct BoxA {
        var harness: Harness
        var token: String
        var gateway: String
        var manifest: PeerManifest
        var folder: URL
    }

    static func boxA(_ a: Harness) throws -> BoxA {
        try TestMedia.multiLanguage(into: a.media, seconds: 6)
        try encryptWithRotatingKeys(a.media)
        try a.startOrigin()
        try a.startPipeline()
        let (code, out) = try a.stowctl([
            "submit", a.originURL + "master.m3u8", "--id", "film", "--bitrate", "500000", "--audio", "en,de",
            "--subtitles", "all", "--wait",
        ])
        #expect(code == 0, "\(out)")
        let token = String(try #require(out.split(separator: "\n").last))
        let gateway = try a.startGateway(address: "127.0.0.1")
        return BoxA(
            harness: a, token: token, gateway: gateway, manifest: PeerManifest.empty,
            folder: a.home.appendingPathComponent("titles/\(token)"))
    }

    /// Encrypts every segment of ffmpeg's five media playlists with AES-128, two keys rotating every two segments,
    /// no IV attribute (the IV is the media sequence number), as a packager would.
    static func encryptWithRotatingKeys(_ media: URL) throws {
        try TestMedia.sh(
            """
            openssl rand 16 > k0.key; openssl rand 16 > k1.key
            for d in low mid high aen ade; do
              n=0; held=""
              while IFS= read -r line; do
                case "$line" in
                  '#EXTINF'*) held="$line" ;;
                  *.ts)
                    k=$(( (n / 2) % 2 ))
                    if [ $((n % 2)) -eq 0 ]; then echo "#EXT-X-KEY:METHOD=AES-128,URI=\\"../k$k.key\\""; fi
                    openssl enc -aes-128-cbc -K "$(od -An -tx1 k$k.key | tr -d ' \\n')" -iv "$(printf '%032x' $n)" \
                      -in "$d/$line" -out "$d/enc.tmp"
                    mv "$d/enc.tmp" "$d/$line"
                    echo "$held"; echo "$line"; n=$((n + 1)) ;;
                  *) echo "$line" ;;
                esac
              done < "$d/index.m3u8" > "$d/index.new"
              mv "$d/index.new" "$d/index.m3u8"
            done
            """, in: media)
    }

    /// `stowctl devices add NAME --peer` on `h`: the secret.
    static func addPeer(_ h: Harness, _ name: String) throws -> String {
        let (code, out) = try h.stowctl(["devices", "add", name, "--peer"])
        #expect(code == 0, "\(out)")
        return String(try #require(out.split(separator: "\n").last))
    }

    /// The manifest A's gateway gives the peer secret.
    static func manifest(_ a: BoxA, secret: String) throws -> PeerManifest {
        try manifest(gateway: a.gateway, id: "film", secret: secret, in: a.harness)
    }

    /// The manifest of title `id` a gateway gives the peer secret.
    static func manifest(gateway: String, id: String, secret: String, in h: Harness) throws -> PeerManifest {
        let (status, body) = try TestMedia.shOutput(
            "curl -sf -H 'Authorization: Bearer \(secret)' '\(gateway)/titles/\(id)/manifest.json'", in: h.root)
        #expect(status == 0, "\(body)")
        return try JSONDecoder().decode(PeerManifest.self, from: Data(body.utf8))
    }

    /// Every regular file under `folder`, by relative path.
    static func files(_ folder: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let walker = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        for case let url as URL in walker
        where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?
            .isRegularFile == true
        {
            let relative = String(url.path.dropFirst(folder.path.count + 1))
            out[relative] = try Data(contentsOf: url)
        }
        return out
    }

    /// The origin's media file (relative to its root) behind a planned file's URL.
    static func originPath(_ file: PeerFile) -> String {
        String((URL(string: file.planned.url)?.path ?? "").dropFirst())
    }

    /// ffmpeg's frame hashes of a title's video through a gateway, with a device's secret.
    static func frames(_ gateway: String, secret: String) throws -> String {
        try OfflineCopy.framemd5(
            "\(gateway)/titles/film/master.m3u8", extra: ["-headers", "Authorization: Bearer \(secret)\r\n"])
    }

    @Test func aBoxFillsFromAnotherBoxCheckingEveryFileAgainstItsHash() throws {
        let a = try Harness(name: "peer-a")
        let b = try Harness(name: "peer-b")
        var boxA = try Self.boxA(a)
        let device = try a.addDevice("tablet")
        let peerSecret = try Self.addPeer(a, "box-b")
        #expect(
            try a.httpStatus(boxA.gateway + "/titles/film/manifest.json", headers: ["Authorization: Bearer \(device)"])
                == 403, "an ordinary device gets no manifest")
        #expect(try a.httpStatus(boxA.gateway + "/titles/film/manifest.json") == 401)
        boxA.manifest = try Self.manifest(boxA, secret: peerSecret)
        let held = boxA.manifest.files.filter { $0.sha256 != nil }
        #expect(held.count == boxA.manifest.files.count, "a completed title: every file held")
        #expect(Set(boxA.manifest.renditions.map(\.kind)) == [.video, .audio, .subtitles])
        #expect(boxA.manifest.keys.count == 2, "two rotating keys, by their server's URIs")

        // The origin lacks every media file A holds but one; A's copy of that one is corrupted.
        let corrupted = try #require(held.first { $0.planned.localPath.hasSuffix(".ts") && $0.planned.encrypted })
        for file in held where file != corrupted {
            let path = a.media.appendingPathComponent(Self.originPath(file))
            try FileManager.default.moveItem(at: path, to: path.appendingPathExtension("gone"))
        }
        let corruptedOnA = boxA.folder.appendingPathComponent(corrupted.planned.localPath)
        var bytes = try Data(contentsOf: corruptedOnA)
        bytes[bytes.count / 2] ^= 0xff
        try bytes.write(to: corruptedOnA)
        let originBefore = a.originLog().count

        try b.startPipeline()
        let secretFile = b.root.appendingPathComponent("peer.secret")
        try "\(peerSecret)\n".write(to: secretFile, atomically: true, encoding: .utf8)
        let (code, out) = try b.stowctl([
            "submit", "--from-peer", boxA.gateway, "--peer-secret", secretFile.path, "film", "--id", "film",
        ])
        #expect(code == 0, "\(out)")
        let token = String(try #require(out.split(separator: "\n").last))
        let final = try b.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.filesFromOrigin == 1, "the corrupted file only")
        #expect(final.filesFromPeer == held.count - 1)
        #expect(final.url == a.originURL + "master.m3u8", "the title's source is the origin's")

        // Byte for byte A's copy (playlists included), the corrupted file as the origin has it.
        let onA = try Self.files(boxA.folder)
        let onB = try Self.files(b.home.appendingPathComponent("titles/\(token)"))
        #expect(Set(onB.keys) == Set(onA.keys))
        for (path, data) in onA where path != corrupted.planned.localPath {
            #expect(onB[path] == data, "\(path) differs from A's")
        }
        let original = try Data(contentsOf: a.media.appendingPathComponent(Self.originPath(corrupted)))
        #expect(onB[corrupted.planned.localPath] == original, "the origin's copy of the file A served wrong")

        // The origin saw one media fetch (the corrupted file's), and B's own key fetches.
        let fetched = a.originLog().dropFirst(originBefore).filter { $0.count > 2 && $0[1] == "GET" }
            .map { String($0[2].split(separator: "?")[0]) }
        let media = fetched.filter { $0.hasSuffix(".ts") || $0.hasSuffix(".vtt") }
        #expect(media == ["/" + Self.originPath(corrupted)], "\(fetched)")
        // The fallback fetch, and every other request of B at the origin, carried no credentials (the 8th field).
        let carried = a.originLog().dropFirst(originBefore).filter { $0.count > 7 }.map { "\($0[2]) \($0[7])" }
        #expect(!carried.isEmpty && carried.allSatisfy { $0.hasSuffix(" -") }, "the peer secret went on: \(carried)")
        #expect(fetched.contains("/k0.key") && fetched.contains("/k1.key"), "B licensed its own keys: \(fetched)")
        #expect(!fetched.contains { $0.hasSuffix(".m3u8") }, "the plan is A's: no playlist from the origin")

        // The same frames through B's gateway as through A's (A's copy repaired first: it served one file wrong).
        try bytes.reverseCorruption(at: bytes.count / 2).write(to: corruptedOnA)
        let gatewayB = try b.startGateway(address: "127.0.0.1")
        let deviceB = try b.addDevice("tablet")
        #expect(try Self.frames(gatewayB, secret: deviceB) == Self.frames(boxA.gateway, secret: device))
        let plays = try #require(a.stowctl(["devices", "list", "--json"]).1.data(using: .utf8))
        let devices = try JSONDecoder().decode([DeviceInfo].self, from: plays)
        #expect(devices.first { $0.name == "box-b" }?.lastPlays.isEmpty == true, "a peer's fetches are no plays")
        #expect(devices.first { $0.name == "box-b" }?.peer == true)
    }
}

extension PeerFillTests {
    /// A stopped in the middle of B's fill: B's title waits for A's gateway like for an origin (suspended `network`,
    /// probed) and completes from it, every file from the peer, once it is back on the same address.
    @Test func aPeerThatStopsIsWaitedForAndTheFillResumesWhenItIsBack() throws {
        let a = try Harness(name: "peer-wait-a")
        let b = try Harness(name: "peer-wait-b")
        try a.makeSample(seconds: 8)
        try a.startOrigin()
        try a.startPipeline()
        let (code, out) = try a.stowctl(["submit", a.originURL + "master.m3u8", "--id", "film", "--wait"])
        #expect(code == 0, "\(out)")
        let port = try Harness.freePort()
        let gateway = try a.startGateway(address: "127.0.0.1", port: port)
        let secretFile = b.root.appendingPathComponent("peer.secret")
        try "\(try Self.addPeer(a, "box-b"))\n".write(to: secretFile, atomically: true, encoding: .utf8)

        // B's resolve takes the manifest (no license worker yet: no file is fetched), then A's gateway stops.
        try b.startScheduler()
        try b.startWorker("download")
        try b.startWorker("integrity")
        try b.waitUntil(timeout: 20, "two workers registered") { (try? b.workers().count) == 2 }
        let (submitted, said) = try b.stowctl([
            "submit", "--from-peer", gateway, "--peer-secret", secretFile.path, "film",
        ])
        #expect(submitted == 0, "\(said)")
        let token = String(try #require(said.split(separator: "\n").last))
        try b.waitUntil(timeout: 30, "B's title planned from A's manifest") {
            ((try? b.status(token))?.segmentsTotal ?? 0) > 0
        }
        #expect(a.terminate("gateway") == 0)
        try b.startWorker("license")
        var waiting: TitleStatus?
        try b.waitUntil(timeout: 60, "B's title to wait for A's gateway") {
            waiting = try? b.status(token)
            return waiting?.state == .suspended
        }
        #expect(waiting?.suspendedReason == .network)
        #expect(waiting?.waitingFor == "127.0.0.1:\(port)", "it waits for the peer, not the origin")
        #expect(waiting?.segmentsDone == 0)

        _ = try a.startGateway(address: "127.0.0.1", port: port)
        let final = try b.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.filesFromPeer == final.segmentsTotal && final.filesFromOrigin == 0)
        #expect(b.log("scheduler").contains("host answers again"), "resumed by the probe")
    }

    /// A's gateway is down when B submits: the submit still queues the title (exit 0, the token), B's resolve of
    /// A's manifest fails for the network and is retried like an origin's (nothing planned), and once A's gateway
    /// answers on that address B plans from its manifest and completes with A's copy, byte for byte.
    @Test func aPeerUnreachableAtSubmitIsAWaitNotAFailedSubmit() throws {
        let a = try Harness(name: "peer-down-a")
        let b = try Harness(name: "peer-down-b")
        try a.makeSample(seconds: 8)
        try a.startOrigin()
        try a.startPipeline()
        let (code, out) = try a.stowctl(["submit", a.originURL + "master.m3u8", "--id", "film", "--wait"])
        #expect(code == 0, "\(out)")
        let tokenA = String(try #require(out.split(separator: "\n").last))
        let port = try Harness.freePort()
        let secretFile = b.root.appendingPathComponent("peer.secret")
        try "\(try Self.addPeer(a, "box-b"))\n".write(to: secretFile, atomically: true, encoding: .utf8)

        try b.startPipeline()
        let (submitted, said) = try b.stowctl([
            "submit", "--from-peer", "http://127.0.0.1:\(port)", "--peer-secret", secretFile.path, "film",
        ])
        #expect(submitted == 0, "an unreachable peer is no failed submit: \(said)")
        let token = String(try #require(said.split(separator: "\n").last))
        // B's resolve finds nobody at A's address: a network failure of the resolve, retried. That it spends the
        // budget and then waits for the peer (suspended `network`) is `PeerServiceTests` on the manual clock, and
        // with the real processes `aPeerThatStopsIsWaitedForAndTheFillResumesWhenItIsBack`.
        try b.waitUntil(timeout: 30, "B's resolve to find A's gateway down") {
            b.log("download").split(separator: "\n").contains {
                $0.contains("task failed") && $0.contains("code=network") && $0.contains("127.0.0.1:\(port)")
            }
        }
        let waiting = try b.status(token)
        #expect(!waiting.state.isFinal, "\(waiting.state) \(String(describing: waiting.error))")
        #expect(waiting.segmentsTotal == 0, "nothing planned without the manifest")

        _ = try a.startGateway(address: "127.0.0.1", port: port)
        let final = try b.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.url == a.originURL + "master.m3u8", "the title's source is the origin's, from the manifest")
        #expect(final.filesFromPeer == final.segmentsTotal && final.filesFromOrigin == 0)
        let onA = try Self.files(a.home.appendingPathComponent("titles/\(tokenA)"))
        let onB = try Self.files(b.home.appendingPathComponent("titles/\(token)"))
        #expect(!onA.isEmpty && onB == onA, "B's copy is A's: \(onA.keys.sorted()) vs \(onB.keys.sorted())")
    }
}

extension PeerFillTests {
    /// The manifest is fetched under B's network policy, like any source: with A's network in `--deny-networks`, B's
    /// title fails `refused` naming the address, before anything is planned.
    @Test func thePeersManifestIsFetchedUnderTheNetworkPolicy() throws {
        let a = try Harness(name: "peer-deny-a")
        let b = try Harness(name: "peer-deny-b")
        try a.makeSample(seconds: 4)
        try a.startOrigin()
        try a.startPipeline()
        let (code, out) = try a.stowctl(["submit", a.originURL + "master.m3u8", "--id", "film", "--wait"])
        #expect(code == 0, "\(out)")
        let gateway = try a.startGateway(address: "127.0.0.1")
        let secretFile = b.root.appendingPathComponent("peer.secret")
        try "\(try Self.addPeer(a, "box-b"))\n".write(to: secretFile, atomically: true, encoding: .utf8)

        try b.startPipeline(schedulerArguments: ["--deny-networks", "127.0.0.0/8"])
        let (submitted, said) = try b.stowctl([
            "submit", "--from-peer", gateway, "--peer-secret", secretFile.path, "film",
        ])
        #expect(submitted == 0, "\(said)")
        let token = String(try #require(said.split(separator: "\n").last))
        let final = try b.waitForFinal(token, timeout: 30)
        #expect(final.state == .failed)
        #expect(final.error?.code == .refused, "\(String(describing: final.error))")
        #expect(final.segmentsTotal == 0, "nothing planned from a peer the policy forbids")
        #expect(final.error?.message.contains("127.0.0.1") == true, "\(final.error?.message ?? "")")
    }
}

extension PeerFillTests {
    /// A catalogue entry with `sources` fills from the peer it names, with the secret B keeps under that credential's
    /// name in its home (the catalogue holds none): every file from A, B's copy A's byte for byte.
    @Test func aCatalogueEntryWithSourcesFillsFromThePeer() throws {
        let a = try Harness(name: "peer-catalog-a")
        let b = try Harness(name: "peer-catalog-b")
        try a.makeSample(seconds: 6)
        try a.startOrigin()
        try a.startPipeline()
        let (code, out) = try a.stowctl(["submit", a.originURL + "master.m3u8", "--id", "film", "--wait"])
        #expect(code == 0, "\(out)")
        let tokenA = String(try #require(out.split(separator: "\n").last))
        let gateway = try a.startGateway(address: "127.0.0.1")
        let peers = b.home.appendingPathComponent("peers")
        try FileManager.default.createDirectory(at: peers, withIntermediateDirectories: true)
        try "\(try Self.addPeer(a, "box-b"))\n".write(
            to: peers.appendingPathComponent("box-a.secret"), atomically: true, encoding: .utf8)
        try "\(gateway)\n".write(to: peers.appendingPathComponent("box-a.url"), atomically: true, encoding: .utf8)

        try b.startPipeline()
        let catalogue = b.root.appendingPathComponent("catalog.json")
        try Data(
            """
            {"version": 1, "titles": [{"id": "film", "url": "\(a.originURL)master.m3u8",
              "sources": [{"peer": "\(gateway)", "credential": "box-a"}]}]}
            """.utf8
        ).write(to: catalogue)
        let (applied, said) = try b.stowctl(["catalog", "apply", catalogue.path])
        #expect(applied == 0, "\(said)")
        var token: String?
        try b.waitUntil(timeout: 30, "the catalogue's title submitted") {
            let listed = try? JSONDecoder().decode(
                [TitleStatus].self, from: Data(b.stowctl(["list", "--json"]).1.utf8))
            token = listed?.first { $0.id == "film" }?.token
            return token != nil
        }
        let final = try b.waitForFinal(try #require(token), timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.filesFromPeer == final.segmentsTotal && final.filesFromOrigin == 0)
        let onA = try Self.files(a.home.appendingPathComponent("titles/\(tokenA)"))
        let onB = try Self.files(b.home.appendingPathComponent("titles/\(final.token)"))
        #expect(!onA.isEmpty && onB == onA)
    }
}

extension PeerFillTests {
    /// A DASH title fills the same way: B's copy (its local `manifest.mpd` included) is A's, byte for byte, with
    /// the origin's media gone but for one segment that A lacks (deleted from its disk: A answers 404), which B
    /// takes from the origin.
    @Test func aDASHTitleFillsFromThePeerByteForByte() throws {
        let a = try Harness(name: "peer-dash-a")
        let b = try Harness(name: "peer-dash-b")
        try DASHMedia.template(into: a.media, timeline: true)
        try a.startOrigin()
        try a.startPipeline()
        let (code, out) = try a.stowctl(["submit", a.originURL + "manifest.mpd", "--id", "clip", "--wait"])
        #expect(code == 0, "\(out)")
        let tokenA = String(try #require(out.split(separator: "\n").last))
        let gateway = try a.startGateway(address: "127.0.0.1")
        let secret = try Self.addPeer(a, "box-b")
        let secretFile = b.root.appendingPathComponent("peer.secret")
        try "\(secret)\n".write(to: secretFile, atomically: true, encoding: .utf8)
        let manifest = try Self.manifest(gateway: gateway, id: "clip", secret: secret, in: a)
        let lacking = try #require(manifest.files.first { $0.planned.localPath.hasSuffix("seg-00002.m4s") })
        let folderA = a.home.appendingPathComponent("titles/\(tokenA)")
        var onA = try Self.files(folderA)
        try FileManager.default.removeItem(at: folderA.appendingPathComponent(lacking.planned.localPath))
        for name in try FileManager.default.contentsOfDirectory(atPath: a.media.path)
        where name.hasSuffix(".m4s") && name != Self.originPath(lacking) {
            let path = a.media.appendingPathComponent(name)
            try FileManager.default.moveItem(at: path, to: path.appendingPathExtension("gone"))
        }
        let originBefore = a.originLog().count
        try b.startPipeline()
        let (submitted, said) = try b.stowctl([
            "submit", "--from-peer", gateway, "--peer-secret", secretFile.path, "clip",
        ])
        #expect(submitted == 0, "\(said)")
        let token = String(try #require(said.split(separator: "\n").last))
        let final = try b.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.localPlaylist?.hasSuffix("/manifest.mpd") == true)
        #expect(final.filesFromPeer == final.segmentsTotal - 1 && final.filesFromOrigin == 1)
        let onB = try Self.files(b.home.appendingPathComponent("titles/\(token)"))
        onA[lacking.planned.localPath] = try Data(contentsOf: a.media.appendingPathComponent(Self.originPath(lacking)))
        #expect(!onA.isEmpty && onB == onA, "B's copy is A's: \(onA.keys.sorted()) vs \(onB.keys.sorted())")
        let fetched = a.originLog().dropFirst(originBefore).filter { $0.count > 2 && $0[1] == "GET" }
            .map { String($0[2]) }
        #expect(fetched == ["/" + Self.originPath(lacking)], "only what A lacks: \(fetched)")
    }
}

extension PeerManifest {
    /// A placeholder until the gateway's manifest is read.
    static var empty: PeerManifest {
        PeerManifest(
            token: "", id: nil, name: nil, source: "", entry: "master.m3u8",
            plan: ResolvedPlan(masterPlaylist: "", renditions: [], resources: [], bytesEstimate: nil), files: [])
    }
}

extension Data {
    /// The bytes with the one at `index` flipped back.
    fileprivate func reverseCorruption(at index: Int) -> Data {
        var copy = self
        copy[index] ^= 0xff
        return copy
    }
}
