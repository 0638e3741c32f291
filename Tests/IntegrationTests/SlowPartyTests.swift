import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Parties the box waits on that take their time on purpose, against the real processes: notification receivers
/// that answer a head and then nothing, or redirect to loopback; a catalogue URL that drips its body. Each is cut
/// with a reason shown where the operator looks, the processes stay alive and a normal title completes.
/// Small limits through the real options (`--min-body-rate 1000 --body-rate-window 2s`).
@Suite("Slow parties", .serialized)
struct SlowPartyTests {
    /// `python3 party.py PORT MODE OUT [ARG]`: records every request as a JSON line in OUT; MODE `hold` answers the
    /// first ARG POSTs with a head promising 100 bytes and then nothing, the rest 204; `redirect` answers 307 to ARG;
    /// `record` answers 204; `serve` answers GETs with the files of the folder ARG, one byte a second while a file
    /// `drip` is in that folder (a `manifest.json` always at once).
    static let partyScript = """
        import http.server, json, os, sys, threading, time
        port, mode, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
        arg = sys.argv[4] if len(sys.argv) > 4 else ''
        lock = threading.Lock()
        count = [0]
        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'
            def record(self, body):
                with lock:
                    count[0] += 1
                    with open(out, 'a') as f:
                        f.write(json.dumps({'n': count[0], 'path': self.path, 'body': body}) + '\\n')
                    return count[0]
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get('Content-Length', 0))).decode()
                n = self.record(body)
                if mode == 'hold' and n <= int(arg):
                    self.send_response(200)
                    self.send_header('Content-Length', '100')
                    self.end_headers()
                    self.wfile.flush()
                    time.sleep(3600)
                    return
                if mode == 'redirect':
                    self.send_response(307)
                    self.send_header('Location', arg)
                    self.send_header('Content-Length', '0')
                    self.end_headers()
                    return
                self.send_response(204)
                self.end_headers()
            def do_GET(self):
                self.record('')
                path = os.path.join(arg, self.path.split('?')[0].lstrip('/'))
                if not os.path.isfile(path):
                    self.send_response(404)
                    self.send_header('Content-Length', '0')
                    self.end_headers()
                    return
                data = open(path, 'rb').read()
                self.send_response(200)
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                if os.path.exists(os.path.join(arg, 'drip')) and not path.endswith('manifest.json'):
                    for b in data:
                        self.wfile.write(bytes([b]))
                        self.wfile.flush()
                        time.sleep(1)
                else:
                    self.wfile.write(data)
            def log_message(self, *a):
                pass
        http.server.ThreadingHTTPServer((os.environ.get('PARTY_HOST', '127.0.0.1'), port), H).serve_forever()
        """

    static let pace = ["--min-body-rate", "1000", "--body-rate-window", "2s"]

    /// Starts a party named `name` on a free port of `host`; answers its base URL and the file it records into.
    static func startParty(_ h: Harness, _ name: String, mode: String, arg: String = "", host: String = "127.0.0.1")
        throws -> (String, URL)
    {
        let script = h.root.appendingPathComponent("party.py")
        if !FileManager.default.fileExists(atPath: script.path) {
            try partyScript.write(to: script, atomically: true, encoding: .utf8)
        }
        let port = try Harness.freePort()
        let out = h.root.appendingPathComponent("\(name).jsonl")
        try h.spawn(
            name, "/usr/bin/python3", [script.path, "\(port)", mode, out.path, arg], environment: ["PARTY_HOST": host])
        let url = "http://\(host):\(port)"
        try h.waitUntil(timeout: 10, "\(name) to listen") { (try? h.httpStatus(url + "/ready")) != nil }
        return (url, out)
    }

    static func lines(_ file: URL) -> [[String: Any]] {
        ((try? String(contentsOf: file, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    static func notifyReport(_ h: Harness) throws -> [String: [String: Any]] {
        let (code, out) = try h.stowctl(["notify", "status", "--json"])
        guard code == 0, let report = try? JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any],
            let receivers = report["receivers"] as? [[String: Any]]
        else { return [:] }
        var byURL: [String: [String: Any]] = [:]
        for r in receivers { if let url = r["url"] as? String { byURL[url] = r } }
        return byURL
    }

    /// A receiver that answers three POSTs with a head and then nothing holds one delivery slot for about one
    /// window each (`notify status` shows the cut with its next attempt), then gets every event; a receiver that
    /// answers 307 to loopback never has an event re-sent there (a failed delivery, its error shown).
    @Test func aReceiverThatHoldsItsAnswerIsCutAndRetriedAndARedirectIsNeverFollowed() throws {
        let h = try Harness(name: "slow-notify")
        try h.makeSample(seconds: 4)
        try h.startOrigin()
        let (holding, _) = try Self.startParty(h, "holding", mode: "hold", arg: "3")
        let (loopback, stolen) = try Self.startParty(h, "loopback", mode: "record")
        let (redirecting, _) = try Self.startParty(
            h, "redirecting", mode: "redirect", arg: loopback + "/stolen?token=secret-query")
        let hookHold = holding + "/hook?key=k1"
        let hookRedirect = redirecting + "/hook?key=k2"
        let secretFile = h.root.appendingPathComponent("notify.secret")
        try "s3cret\n".write(to: secretFile, atomically: true, encoding: .utf8)
        try h.startPipeline(
            schedulerArguments: ["--notify", hookHold, "--notify", hookRedirect, "--notify-secret", secretFile.path]
                + Self.pace)
        let token = try h.submit("master.m3u8", ["--bitrate", "1000000"])
        #expect(try h.waitForFinal(token, timeout: 90).state == .completed)

        var cut: [String: Any] = [:]
        try h.waitUntil(timeout: 30, "notify status to show the held answer cut, with its next attempt") {
            cut = try Self.notifyReport(h)[hookHold] ?? [:]
            return (cut["lastError"] as? String)?.contains("bytes/s") == true && cut["nextAttemptAt"] is String
        }
        #expect((cut["lastError"] as? String)?.contains("127.0.0.1") == true, "\(cut)")
        try h.waitUntil(timeout: 90, "every event delivered to the receiver once it answers") {
            (try Self.notifyReport(h)[hookHold]?["waiting"] as? Int) == 0
        }
        let redirected = try #require(try Self.notifyReport(h)[hookRedirect])
        #expect((redirected["lastError"] as? String)?.contains("307") == true, "\(redirected)")
        #expect((redirected["waiting"] as? Int ?? 0) > 0, "nothing counts as delivered to a redirect")
        #expect(Self.lines(stolen).isEmpty, "an event was re-sent to loopback: \(Self.lines(stolen))")
        #expect(h.isRunning("scheduler"))
        #expect(h.terminate("scheduler") == 0)
    }

    /// A catalogue URL whose body drips (one byte a second) is cut within a window, `catalog status` says why;
    /// once it answers at a normal pace its catalogue applies and its title completes.
    @Test func aCatalogueThatDripsIsCutAndTheNextFetchAppliesIt() throws {
        let h = try Harness(name: "slow-catalog")
        try h.makeSample(seconds: 4)
        try h.startOrigin()
        let folder = h.root.appendingPathComponent("published")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let document = """
            {"version": 1, "titles": [{"id": "film", "url": "\(h.originURL)master.m3u8", "name": "film"}]}
            """
        try Data(document.utf8).write(to: folder.appendingPathComponent("catalog.json"))
        try Data().write(to: folder.appendingPathComponent("drip"))
        let (server, _) = try Self.startParty(h, "publisher", mode: "serve", arg: folder.path)
        try h.startPipeline(
            schedulerArguments: ["--catalog", server + "/catalog.json", "--catalog-interval", "1s"] + Self.pace)
        var report: CatalogReport?
        try h.waitUntil(timeout: 20, "catalog status to show the dripping body cut") {
            let (code, out) = try h.stowctl(["catalog", "status", "--json"])
            report = code == 0 ? try? JSONDecoder().decode(CatalogReport.self, from: Data(out.utf8)) : nil
            return report?.lastError?.message.contains("bytes/s") == true
        }
        #expect(report?.lastError?.code == .unreachable && report?.lastError?.message.contains("127.0.0.1") == true)
        #expect(report?.version == nil)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("drip"))
        var token: String?
        try h.waitUntil(timeout: 30, "the catalogue applied") {
            let (code, out) = try h.stowctl(["catalog", "status", "--json"])
            let r = code == 0 ? try? JSONDecoder().decode(CatalogReport.self, from: Data(out.utf8)) : nil
            token = r?.entries.first?.token
            return r?.version == 1 && token != nil
        }
        #expect(try h.waitForFinal(try #require(token), timeout: 90).state == .completed)
        #expect(h.terminate("scheduler") == 0)
    }

    /// A peer box that drips its files (its manifest at once, then one byte a second per file) to box B filling two
    /// titles from it: each file is cut within a window and retried, the peer holds at most half of B's download
    /// worker, and a title from an origin completes beside them.
    @Test func aPeerThatDripsHoldsHalfAWorkerAtMostAndAnOriginTitleCompletesBeside() throws {
        let a = try Harness(name: "slow-peer-a")
        let b = try Harness(name: "slow-peer-b")
        try a.makeSample(seconds: 6)
        try a.startOrigin()
        try a.startPipeline()
        let (code, out) = try a.stowctl(["submit", a.originURL + "master.m3u8", "--id", "film", "--wait"])
        #expect(code == 0, "\(out)")
        let tokenA = String(try #require(out.split(separator: "\n").last))
        let gateway = try a.startGateway(address: "127.0.0.1")
        let secret = try PeerFillTests.addPeer(a, "box-b")
        // The dripping peer: A's manifest and A's files, served by a party that drips every file.
        let folder = b.root.appendingPathComponent("peer")
        for id in ["one", "two"] {
            let titles = folder.appendingPathComponent("titles")
            try FileManager.default.createDirectory(at: titles, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: a.home.appendingPathComponent("titles/\(tokenA)"), to: titles.appendingPathComponent(id))
            let manifest = try PeerFillTests.manifest(gateway: gateway, id: "film", secret: secret, in: a)
            try JSONEncoder().encode(manifest).write(to: titles.appendingPathComponent("\(id)/manifest.json"))
        }
        try Data().write(to: folder.appendingPathComponent("drip"))
        // On another loopback address than the origin's: the scheduler counts connections per host name.
        let (peer, peerLog) = try Self.startParty(b, "peer", mode: "serve", arg: folder.path, host: "127.0.0.2")
        let secretFile = b.root.appendingPathComponent("peer.secret")
        try "\(secret)\n".write(to: secretFile, atomically: true, encoding: .utf8)

        try b.startPipeline(schedulerArguments: ["--titles", "3"] + Self.pace)
        var fromPeer: [String] = []
        for id in ["one", "two"] {
            let (submitted, said) = try b.stowctl(["submit", "--from-peer", peer, "--peer-secret", secretFile.path, id])
            #expect(submitted == 0, "\(said)")
            fromPeer.append(String(try #require(said.split(separator: "\n").last)))
        }
        try b.waitUntil(timeout: 30, "the peer's files being fetched (dripping)") {
            Self.lines(peerLog).filter { ($0["path"] as? String)?.hasSuffix(".ts") == true }.count >= 4
        }
        // Another URL than the peers' source (the same URL would be the same title).
        let other = try a.startOrigin(named: "other")
        let (submitted, said) = try b.stowctl(["submit", other.url + "master.m3u8", "--id", "beside"])
        #expect(submitted == 0, "\(said)")
        let token = String(try #require(said.split(separator: "\n").last))
        let final = try b.waitForFinal(token, timeout: 90)
        #expect(final.state == .completed, "the origin's title beside the drips: \(final)")
        try b.waitUntil(timeout: 30, "the download worker to cut a dripping file") {
            b.log("download").contains("answer cut for its pace")
        }
        // A file cut for its pace is the peer's own answer: it comes from the origin, and the peers' titles complete.
        for token in fromPeer {
            let title = try b.waitForFinal(token, timeout: 180)
            #expect(title.state == .completed, "a title whose peer drips: \(title)")
        }
        #expect(b.log("scheduler").contains("taking it from the origin"))
        #expect(b.isRunning("scheduler") && b.isRunning("download"))
        #expect(b.terminate("scheduler") == 0)
    }
}
