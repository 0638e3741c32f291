import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// The gateway's fast path for title files (`sendfile` over plain HTTP) and what must hold under load: byte
/// ranges and HEAD exact, a revoked device or a deleted title refused within a second while devices keep
/// asking, and a gateway killed with `kill -9` in the middle of plays loses no counted play.
@Suite("Gateway serving", .serialized)
struct GatewayServingTests {
    /// One answer as curl saw it.
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    /// `curl` against the gateway: status, headers (lower-cased names; the last of each), body.
    func fetch(_ url: String, headers: [String], method: String = "GET", in h: Harness) throws -> Answer {
        let base = h.root.appendingPathComponent("fetch-\(UInt32.random(in: 0...UInt32.max))")
        let (head, body) = (base.appendingPathExtension("head"), base.appendingPathExtension("body"))
        defer { for f in [head, body] { try? FileManager.default.removeItem(at: f) } }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let verb = method == "HEAD" ? ["-I"] : ["-X", method]
        p.arguments =
            ["curl", "-s", "-D", head.path, "-o", body.path, "-w", "%{http_code}"] + verb
            + headers.flatMap { ["-H", $0] } + [url]
        let (_, code) = try runCapturingOutput(p)
        var fields: [String: String] = [:]
        for line in ((try? String(contentsOf: head, encoding: .utf8)) ?? "").split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Answer(
            status: Int(code.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, headers: fields,
            body: (try? Data(contentsOf: body)) ?? Data())
    }

    /// A completed title served by a gateway on loopback, and a device's bearer header.
    func servedTitle(_ h: Harness, extra: [String] = [], gatewayExtra: [String] = []) throws
        -> (token: String, gateway: String, auth: String)
    {
        try h.makeSample(seconds: 8)
        try h.startOrigin()
        try h.startPipeline()
        let (code, out) = try h.stowctl(["submit", h.originURL + "master.m3u8", "--id", "film", "--wait"] + extra)
        #expect(code == 0, "\(out)")
        let token = String(try #require(out.split(separator: "\n").last))
        let gateway = try h.startGateway(address: "127.0.0.1", extra: gatewayExtra)
        return (token, gateway, "Authorization: Bearer \(try h.addDevice("tablet-1"))")
    }

    /// The title's media segments, relative to its folder, largest first.
    func segments(_ token: String, in h: Harness) throws -> [(path: String, size: Int)] {
        let root = h.home.appendingPathComponent("titles/\(token)")
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        return
            try files.filter { $0.hasSuffix(".ts") || $0.hasSuffix(".m4s") || $0.hasSuffix(".mp4") }.map { path in
                let size =
                    try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(path).path)[
                        .size] as? Int
                return (path, size ?? 0)
            }.sorted { $0.size > $1.size }
    }

    @Test func rangesAndHeadAreExactThroughTheSendfilePath() throws {
        let h = try Harness(name: "gw-ranges")
        let (token, gateway, auth) = try servedTitle(h)
        let (path, size) = try #require(try segments(token, in: h).first)
        let file = try Data(contentsOf: h.home.appendingPathComponent("titles/\(token)/\(path)"))
        #expect(file.count == size && size > 10_000, "a segment worth ranging: \(size) bytes")
        let url = gateway + "/titles/film/" + path

        let whole = try fetch(url, headers: [auth], in: h)
        let exact = whole.body == file
        #expect(whole.status == 200 && exact, "the whole file: \(whole.status), \(whole.body.count) B")
        #expect(whole.headers["x-stowage-sendfile"] == nil, "the internal field never reaches a client")

        var generator = SystemRandomNumberGenerator()
        for i in 0..<20 {
            let a = Int.random(in: 0..<size, using: &generator)
            let (spec, range): (String, ClosedRange<Int>)
            switch i % 4 {
            case 0: (spec, range) = ("\(a)-", a...(size - 1))  // to the end
            case 1: (spec, range) = ("-\(size - a)", a...(size - 1))  // the last n bytes
            case 2: (spec, range) = ("\(a)-\(a)", a...a)  // one byte
            default:
                let b = Int.random(in: a..<(size + 5000), using: &generator)  // past the end: clipped
                (spec, range) = ("\(a)-\(b)", a...min(b, size - 1))
            }
            let answer = try fetch(url, headers: [auth, "Range: bytes=\(spec)"], in: h)
            #expect(answer.status == 206, "bytes=\(spec): \(answer.status)")
            let exact = answer.body == Data(file[range])  // a Bool: a diff of two segments is too long to print
            #expect(exact, "bytes=\(spec): \(answer.body.count) B, not the file's \(range.count)")
            #expect(answer.headers["content-range"] == "bytes \(range.lowerBound)-\(range.upperBound)/\(size)")
        }
        let beyond = try fetch(url, headers: [auth, "Range: bytes=\(size)-"], in: h)
        #expect(beyond.status == 416 && beyond.headers["content-range"] == "bytes */\(size)")

        let head = try fetch(url, headers: [auth], method: "HEAD", in: h)
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "\(size)" && head.headers["accept-ranges"] == "bytes")
        #expect(head.headers["etag"] == whole.headers["etag"] && head.headers["etag"] != nil)
        #expect(head.headers["content-type"] == whole.headers["content-type"])
        #expect(head.headers["x-stowage-sendfile"] == nil)
        let headRange = try fetch(url, headers: [auth, "Range: bytes=10-19"], method: "HEAD", in: h)
        #expect(headRange.status == 206 && headRange.headers["content-length"] == "10")
        #expect(headRange.headers["content-range"] == "bytes 10-19/\(size)")

        // A keep-alive connection carries several file answers in a row, each exact (the writer's state resets).
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let out = h.root.appendingPathComponent("keepalive.out")
        p.arguments = ["bash", "-c", "curl -s -H '\(auth)' '\(url)' '\(url)' '\(url)' > \(out.path)"]
        _ = try runCapturingOutput(p)
        let three = try Data(contentsOf: out) == file + file + file
        #expect(three, "three answers on one connection")
    }

    /// Requests of `path` by `auth` in a loop from 3 curl processes until `stop` exists; each finished request
    /// logs `UNIX_TIME STATUS`.
    func hammer(_ url: String, auth: String, log: URL, stop: URL, in h: Harness) throws -> Process {
        let loop =
            "while [ ! -e \(stop.path) ]; do c=$(curl -s -o /dev/null -w '%{http_code}' -H '\(auth)' '\(url)'); "
            + "echo \"$(date +%s.%N) $c\"; done"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", "(\(loop)) >> \(log.path) & (\(loop)) >> \(log.path) & (\(loop)) >> \(log.path) & wait"]
        try p.run()
        return p
    }

    /// The statuses logged after `since` (unix seconds).
    func statuses(_ log: URL, after since: Double) -> [Int] {
        let lines = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n")
        return lines.compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let t = Double(parts[0]), t > since else { return nil }
            return Int(parts[1])
        }
    }

    @Test func aRevokedDeviceAndADeletedTitleStopBeingServedWithinASecondUnderLoad() throws {
        let h = try Harness(name: "gw-revoke")
        let (token, gateway, auth) = try servedTitle(h)
        // A second title (another source URL: the same one would be the same title).
        let second = try h.stowctl(["submit", h.originURL + "v360p/index.m3u8", "--id", "other", "--wait"])
        #expect(second.0 == 0, "\(second.1)")
        let otherToken = String(try #require(second.1.split(separator: "\n").last))
        let otherAuth = "Authorization: Bearer \(try h.addDevice("tablet-2"))"
        let path = try #require(try segments(token, in: h).first?.path)
        let otherPath = try #require(try segments(otherToken, in: h).first?.path)
        let stop = h.root.appendingPathComponent("stop")
        let revokedLog = h.root.appendingPathComponent("revoked.log")
        let deletedLog = h.root.appendingPathComponent("deleted.log")
        let load = [
            try hammer(gateway + "/titles/film/" + path, auth: auth, log: revokedLog, stop: stop, in: h),
            try hammer(gateway + "/titles/other/" + otherPath, auth: otherAuth, log: deletedLog, stop: stop, in: h),
        ]
        defer {
            FileManager.default.createFile(atPath: stop.path, contents: nil)
            for p in load { p.waitUntilExit() }
        }
        try h.waitUntil(timeout: 20, "the devices to be served") {
            statuses(revokedLog, after: 0).filter { $0 == 200 }.count >= 20
                && statuses(deletedLog, after: 0).filter { $0 == 200 }.count >= 20
        }
        #expect(try h.stowctl(["devices", "revoke", "tablet-1"]).0 == 0)
        let revokedAt = Date().timeIntervalSince1970
        let (deleteCode, deleteOut) = try h.stowctl(["delete", otherToken])
        #expect(deleteCode == 0, "\(deleteOut)")
        let deletedAt = Date().timeIntervalSince1970
        try h.waitUntil(timeout: 20, "requests well after the changes") {
            statuses(revokedLog, after: revokedAt + 2).count >= 10
                && statuses(deletedLog, after: deletedAt + 2).count >= 10
        }
        let served = statuses(revokedLog, after: revokedAt + 1).filter { $0 == 200 }.count
        #expect(served == 0, "\(served) answers served to the revoked device more than 1 s after the revocation")
        // 401, or 429 once the address's bad credentials are throttled.
        #expect(statuses(revokedLog, after: revokedAt + 1).allSatisfy { $0 == 401 || $0 == 429 })
        let deleted = statuses(deletedLog, after: deletedAt + 1).filter { $0 == 200 }.count
        #expect(deleted == 0, "\(deleted) answers of the deleted title more than 1 s after the deletion")
        #expect(statuses(revokedLog, after: 0).contains(200), "the device was served before")
        #expect(h.isRunning("gateway"))
    }

    @Test func aGatewayKilledDuringPlaysLosesNoCountedPlay() throws {
        let h = try Harness(name: "gw-kill9")
        let (token, gateway, auth) = try servedTitle(h, extra: ["--play-count", "10", "--play-time", "1h"])
        let segs = try segments(token, in: h).map(\.path)
        let devices = [auth, "Authorization: Bearer \(try h.addDevice("tablet-2"))"]
        // Two plays (one per device), each served every segment: the plays count at their first segment.
        for device in devices {
            #expect(try fetch(gateway + "/titles/film/master.m3u8", headers: [device], in: h).status == 200)
            for path in segs {
                #expect(try fetch(gateway + "/titles/film/" + path, headers: [device], in: h).status == 200)
            }
        }
        #expect(try h.status(token).license?.playsRemaining == 8, "both plays counted before they were served")
        // Play time is reported within seconds: wait until it shows, then start a third play and kill at once.
        try h.waitUntil(timeout: 10, "the play time served to be reported") {
            (try h.status(token).license?.playTimeRemainingSeconds ?? 3600) < 3600 - 8
        }
        let reported = try #require(try h.status(token).license?.playTimeRemainingSeconds)
        let third = "Authorization: Bearer \(try h.addDevice("tablet-3"))"
        #expect(try fetch(gateway + "/titles/film/" + segs[0], headers: [third], in: h).status == 200)
        h.kill9("gateway")
        let after = try h.status(token).license
        #expect(after?.playsRemaining == 7, "the play counted just before kill -9 stays counted")
        #expect((after?.playTimeRemainingSeconds ?? 3600) <= reported, "reported play time is never given back")
        // A new gateway: nothing is counted again or uncounted, and the next play counts once.
        let restarted = try h.startGateway(address: "127.0.0.1", name: "gateway-2")
        #expect(try h.status(token).license?.playsRemaining == 7)
        #expect(try fetch(restarted + "/titles/film/" + segs[0], headers: [devices[0]], in: h).status == 200)
        #expect(try h.status(token).license?.playsRemaining == 6)
    }
}
