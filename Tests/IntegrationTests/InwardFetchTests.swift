import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// What a title's playlists can make the box fetch: a title from a LAN address (a second test host's network)
/// cannot reach the box's own loopback services — by address, by a name that resolves there, or by a redirect —
/// nor the cloud metadata address; the gateway's streaming of a title still downloading keeps to the same rule;
/// submitted credentials go only to the title's own host.
@Suite("Inward fetches refused", .serialized)
struct InwardFetchTests {
    /// A second origin on 127.0.0.1 (the box's own services, as an attacker would aim at them) with its own access
    /// log; returns its port and the log's path.
    func startLoopbackService(_ h: Harness) throws -> (port: Int, log: URL) {
        let origin = try h.startOrigin(named: "loopback")
        return (origin.port, origin.accessLog)
    }

    func requests(in log: URL) -> [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func write(_ h: Harness, _ name: String, segment: String) throws {
        let text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n\(segment)\n#EXT-X-ENDLIST\n"
        try text.write(to: h.media.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    @Test func aLANTitleReachesNeitherTheBoxItselfNorTheMetadataAddress() throws {
        let h = try Harness(name: "address-policy")
        let lan = try TestHost.make()
        defer { lan.remove() }
        try h.makeSample(seconds: 4)
        let loopback = try startLoopbackService(h)
        let inner = "http://127.0.0.1:\(loopback.port)/v360p/seg000.ts"
        // The LAN origin: an address of the second host's network (private), not loopback.
        try h.startOrigin(extra: ["--host", lan.peerAddress, "--redirect", "/v360p/moved.ts=\(inner)"])
        #expect(h.originURL.contains(lan.peerAddress))
        try write(h, "to-address.m3u8", segment: inner)
        try write(h, "to-name.m3u8", segment: "http://localhost:\(loopback.port)/v360p/seg000.ts")
        try write(h, "to-redirect.m3u8", segment: "v360p/moved.ts")
        try h.startPipeline()

        func refused(_ token: String, naming address: String) throws {
            let status = try h.waitForFinal(token, timeout: 60)
            #expect(status.state == .failed, "\(token) must fail")
            #expect(status.error?.code == .refused, "\(String(describing: status.error))")
            #expect(status.error?.message.contains(address) == true, "\(status.error?.message ?? "no error")")
        }
        try refused(try h.submit("to-address.m3u8"), naming: "127.0.0.1")
        try refused(try h.submit("to-name.m3u8"), naming: "localhost resolves to 127.0.0.1")
        try refused(try h.submit("to-redirect.m3u8"), naming: "127.0.0.1")
        try refused(
            try h.submit("v360p/index.m3u8", ["--poster", "http://169.254.169.254/latest/poster.jpg"]),
            naming: "169.254.169.254")
        #expect(h.originGets(path: "/v360p/moved.ts") == 1, "the redirect was asked for once, not retried")
        #expect(requests(in: loopback.log).isEmpty, "the box's own service was reached: \(requests(in: loopback.log))")

        // The same host's title whose files stay on its network downloads.
        let good = try h.waitForFinal(try h.submit("master.m3u8"), timeout: 90)
        #expect(good.state == .completed, "\(String(describing: good.error))")
        let reach = try TestMedia.sh(
            "sqlite3 '\(h.home.path)/stowage.sqlite' \"SELECT reach FROM title WHERE token = '\(good.token)'\"",
            in: h.root)
        #expect(reach.trimmingCharacters(in: .whitespacesAndNewlines) == "private")
    }

    @Test func theGatewayStreamsADownloadingTitleOnlyFromAllowedAddresses() throws {
        let h = try Harness(name: "address-policy-gateway")
        let lan = try TestHost.make()
        defer { lan.remove() }
        try h.makeSample(seconds: 4)
        let loopback = try startLoopbackService(h)
        try h.startOrigin(extra: ["--host", lan.peerAddress])
        try write(h, "to-address.m3u8", segment: "http://127.0.0.1:\(loopback.port)/v360p/seg000.ts")
        try "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=500000\nto-address.m3u8\n".write(
            to: h.media.appendingPathComponent("to-address-master.m3u8"), atomically: true, encoding: .utf8)
        // No license worker: the title is planned and waits in `licensing`, its segments not fetched; paused, it
        // may be played while downloading, the gateway fetching what is missing.
        try h.startScheduler()
        try h.startWorker("download")
        try h.waitUntil(timeout: 20, "the download worker") { (try? h.workers().count) == 1 }
        let token = try h.submit("to-address-master.m3u8")
        try h.waitUntil(timeout: 30, "the title planned") { try h.status(token).state == .licensing }
        #expect(try h.stowctl(["pause", token]).0 == 0)
        let gateway = try h.startGateway(address: "127.0.0.1")
        let secret = try h.addDevice("tablet")
        let base = "\(gateway)/titles/\(token)/"
        /// GET (following redirects): status, body, and the path in the title that answered.
        func get(_ path: String) throws -> (Int, String, String) {
            let body = h.root.appendingPathComponent("get-\(UInt32.random(in: 0...UInt32.max))")
            let (_, said) = try TestMedia.shOutput(
                "curl -sL -o '\(body.path)' -w '%{http_code} %{url_effective}' -H 'Authorization: Bearer \(secret)' "
                    + "'\(base)\(path)'", in: h.root)
            let parts = said.split(separator: " ")
            let effective = parts.count > 1 ? String(parts[1]) : ""
            let served = String(effective.dropFirst(base.count).prefix { $0 != "?" })
            return (Int(parts.first ?? "") ?? 0, (try? String(contentsOf: body, encoding: .utf8)) ?? "", served)
        }
        // From the title's entry (a redirect) through the served playlists to the segment.
        var answer = try get("")
        var path = answer.2
        while answer.0 == 200, path.hasSuffix(".m3u8") {
            let uri = try #require(answer.1.split(separator: "\n").first { !$0.hasPrefix("#") && !$0.isEmpty })
            let relative = String(uri.split(separator: "?")[0])
            path = (path as NSString).deletingLastPathComponent
            path = path.isEmpty ? relative : path + "/" + relative
            answer = try get(path)
        }
        #expect(path.hasSuffix(".ts"), "followed to \(path)")
        #expect(answer.0 == 502, "the segment must be refused: \(answer)")
        #expect(answer.1.contains("127.0.0.1") && answer.1.contains("loopback"), "\(answer.1)")
        #expect(requests(in: loopback.log).isEmpty, "reached: \(requests(in: loopback.log))")
    }

    @Test func submittedCredentialsGoOnlyToTheTitlesHost() throws {
        let h = try Harness(name: "header-hosts")
        try h.makeSample(seconds: 4)
        // A second host (another loopback address) that the title's playlist names for its segment.
        let secondHost = try h.startOrigin(named: "second", host: "127.0.0.2")
        let secondPort = secondHost.port, secondLog = secondHost.accessLog
        try h.startOrigin()
        try write(h, "elsewhere.m3u8", segment: "http://127.0.0.2:\(secondPort)/v360p/seg000.ts")
        try h.startPipeline()
        let token = try h.submit("elsewhere.m3u8", ["--header", "Authorization: Bearer box-secret"])
        let status = try h.waitForFinal(token, timeout: 60)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        let own = h.originLog().filter { $0.count > 2 && $0[2] == "/elsewhere.m3u8" }
        #expect(!own.isEmpty && own.allSatisfy { $0.last == "authorization" }, "the title's host: \(own)")
        let second = requests(in: secondLog).filter { $0.contains("/v360p/seg000.ts") }
        #expect(!second.isEmpty, "the segment came from the second host")
        #expect(second.allSatisfy { $0.hasSuffix(" -") }, "no credential to the second host: \(second)")
    }
}
