import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// `stowage-gateway` serving the box's titles to devices of the LAN: a device in another network namespace
/// plays through the gateway on a non-loopback address with the origin stopped; credentials, signed URLs,
/// `/resolve`, plays counted across devices, and the library page in a real headless Chromium.
@Suite("LAN gateway", .serialized)
struct GatewayTests {
    /// A command run on the device (inside its network namespace): exit status and stdout.
    func onDevice(_ host: TestHost, _ command: String, in h: Harness) throws -> (Int32, String) {
        try TestMedia.shOutput("ip netns exec \(host.namespace) bash -c \(Self.quoted(command))", in: h.root)
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// `curl` from the device: the HTTP status and the body.
    func curl(_ host: TestHost, _ url: String, headers: [String] = [], in h: Harness) throws -> (Int, String) {
        let hs = headers.map { "-H \(Self.quoted($0))" }.joined(separator: " ")
        let body = h.root.appendingPathComponent("curl-\(UInt32.random(in: 0...UInt32.max)).out")
        let (_, code) = try onDevice(host, "curl -s -o \(body.path) -w '%{http_code}' \(hs) \(Self.quoted(url))", in: h)
        return (
            Int(code.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0,
            (try? String(contentsOf: body, encoding: .utf8)) ?? ""
        )
    }

    /// ffmpeg's frame hashes of the video of `url`, decoded on the device.
    func deviceFrames(_ host: TestHost, _ url: String, bearer: String? = nil, in h: Harness) throws -> String {
        let headers = bearer.map { "-headers \(Self.quoted("Authorization: Bearer \($0)\r\n")) " } ?? ""
        let errors = h.root.appendingPathComponent("ffmpeg-\(UInt32.random(in: 0...UInt32.max)).err")
        let (status, out) = try onDevice(
            host,
            "ffmpeg -nostdin -v error \(headers)-i \(Self.quoted(url)) -map 0:v -f framemd5 - 2>\(errors.path)", in: h)
        let frames = out.split(separator: "\n").filter { !$0.hasPrefix("#") }
        guard status == 0, !frames.isEmpty else {
            let said = ((try? String(contentsOf: errors, encoding: .utf8)) ?? "").suffix(600)
            let (code, body) = try curl(host, url, headers: bearer.map { ["Authorization: Bearer \($0)"] } ?? [], in: h)
            throw HarnessError(
                "ffmpeg on the device could not decode \(url): exit \(status), \(frames.count) frames: \(said)"
                    + " (now \(code): \(body.prefix(300)))")
        }
        return frames.joined(separator: "\n")
    }

    @Test func aDeviceOnTheLANPlaysWithTheOriginStoppedAndOnlyWithAValidCredential() throws {
        let host = try TestHost.make()
        defer { host.remove() }
        let h = try Harness(name: "gw-play")
        try h.makeSample(seconds: 8)
        try h.startOrigin()
        try h.startPipeline()
        let (code, out) = try h.stowctl(["submit", h.originURL + "master.m3u8", "--id", "lecture-1", "--wait"])
        #expect(code == 0, "\(out)")
        let token = String(try #require(out.split(separator: "\n").last))
        let expected = try OfflineCopy.framemd5(h.originURL + "v360p/index.m3u8")
        #expect(h.terminate("origin") == 0)
        let gateway = try h.startGateway(address: host.peerAddress)
        let secret = try h.addDevice("tablet-1")
        let startLog = (try? String(contentsOf: h.root.appendingPathComponent("gateway.log"), encoding: .utf8)) ?? ""
        #expect(
            startLog.components(separatedBy: "serving plain HTTP").count == 2,
            "plain HTTP on a LAN address is warned about once: \(startLog.suffix(600))")

        // No credential, a wrong one: 401 with the JSON error; keys never cross such a request.
        for headers in [[], ["Authorization: Bearer wrong"]] {
            let (status, body) = try curl(host, gateway + "/titles/lecture-1/master.m3u8", headers: headers, in: h)
            #expect(status == 401 && body.contains("\"unauthorized\""), "\(status) \(body)")
        }
        // The title by id and by token, frame for frame as the origin's, decoded on the device.
        for key in ["lecture-1", token] {
            let frames = try deviceFrames(host, gateway + "/titles/\(key)/master.m3u8", bearer: secret, in: h)
            #expect(frames == expected, "the device plays /titles/\(key)/ as the origin's")
        }
        let (redirect, _) = try curl(
            host, gateway + "/titles/lecture-1/", headers: ["Authorization: Bearer \(secret)"], in: h)
        #expect(redirect == 302)
        // Path tricks never leave the title's folder.
        for trick in [
            "/titles/lecture-1/../../stowage.sqlite", "/titles/lecture-1/%2e%2e/%2e%2e/stowage.sqlite",
            "/titles/lecture-1/video%2F..%2F..%2Fstowage.sqlite",
        ] {
            let (status, _) = try curl(host, gateway + trick, headers: ["Authorization: Bearer \(secret)"], in: h)
            #expect(status == 404 || status == 400, "\(trick) answered \(status)")
        }
        // A forged exp of any size is refused, and takes nothing down.
        for exp in ["1e19", "99999999999999999999", "-1", "nan", "9223372036854775807"] {
            let forged = gateway + "/titles/lecture-1/master.m3u8?dev=tablet-1&exp=\(exp)&sig=00"
            #expect(try curl(host, forged, in: h).0 == 401, "exp=\(exp)")
        }
        #expect(h.isRunning("scheduler") && h.isRunning("gateway"))
        #expect(try h.stowctl(["devices", "add", "admin"]).0 == 1, "'admin' is the operator, not a device")
        // A signed URL for players that cannot send headers; refused once it expired.
        let (signCode, signed) = try h.stowctl([
            "devices", "sign", "tablet-1", "/titles/lecture-1/master.m3u8",
            "--expires", "4s",
        ])
        #expect(signCode == 0)
        let signedURL = signed.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(signedURL.hasPrefix(gateway + "/titles/lecture-1/"), "the whole URL, the gateway's address first")
        #expect(try deviceFrames(host, signedURL, in: h) == expected, "the signed URL plays")
        let expires = try #require(
            URLComponents(string: signedURL)?.queryItems?.first { $0.name == "exp" }?.value.flatMap(Double.init))
        try h.waitUntil(timeout: 30, "the signed URL to expire") { Date().timeIntervalSince1970 > expires + 1 }
        #expect(try curl(host, signedURL, in: h).0 == 401, "an expired signed URL is refused")
        // Revoked: refused at once.
        #expect(try h.stowctl(["devices", "revoke", "tablet-1"]).0 == 0)
        let (revoked, _) = try curl(
            host, gateway + "/titles/lecture-1/master.m3u8", headers: ["Authorization: Bearer \(secret)"], in: h)
        #expect(revoked == 401)
        let (_, list) = try h.stowctl(["devices", "list", "--json"])
        let devices = try JSONDecoder().decode([DeviceInfo].self, from: Data(list.utf8))
        #expect(devices.first?.revokedAt != nil && devices.first?.lastPlays.first?.token == token)
    }

    @Test func resolveAnswersTheLocalCopyOrTheSourceAndPlaysAreCountedAcrossDevices() throws {
        let host = try TestHost.make()
        defer { host.remove() }
        let h = try Harness(name: "gw-resolve")
        try h.makeSample(seconds: 6)
        try h.startOrigin()
        try h.startPipeline()
        let source = h.originURL + "master.m3u8"
        let (code, out) = try h.stowctl(["submit", source, "--id", "match", "--play-count", "2", "--wait"])
        #expect(code == 0, "\(out)")
        let (dup, _, dupError) = try h.stowctlStreams(["submit", h.originURL + "v360p/index.m3u8", "--id", "match"])
        #expect(dup == 1 && dupError.contains("match"), "a second title with the same id is refused: \(dupError)")
        let gateway = try h.startGateway(address: host.peerAddress)
        let a = try h.addDevice("seat-1"), b = try h.addDevice("seat-2"), c = try h.addDevice("seat-3")
        let auth = ["Authorization: Bearer \(a)"]

        let (byID, _) = try curl(host, gateway + "/resolve?id=match", headers: auth, in: h)
        #expect(byID == 302)
        let (json, body) = try curl(
            host, gateway + "/resolve?url=\(source.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
            headers: auth + ["Accept: application/json"], in: h)
        #expect(json == 200 && body.contains("/titles/"), "\(body)")
        let unknown = "http://127.0.0.1:9/never.m3u8"
        let encoded = unknown.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let (missing, missingBody) = try curl(host, gateway + "/resolve?url=\(encoded)", headers: auth, in: h)
        #expect(missing == 404 && missingBody.contains("not-found"))
        let fallback = try h.startGateway(
            address: host.peerAddress, name: "gateway-fallback", extra: ["--fallback-to-source"])
        // A URL that is no title's is never redirected to, even with --fallback-to-source (no open redirect).
        let (toSource, sourceBody) = try curl(
            host, fallback + "/resolve?url=\(encoded)", headers: auth + ["Accept: application/json"], in: h)
        #expect(toSource == 404 && sourceBody.contains("not-found"), "\(sourceBody)")

        // Play count 2 across two devices: seat-1 and seat-2 play; seat-1 again within its session is the same
        // play; seat-1's next session (after 30 s without requests) is the third and is refused with the license's
        // reason. Playlists alone count nothing (seat-3 only fetches the master).
        #expect(
            try curl(host, gateway + "/titles/match/master.m3u8", headers: ["Authorization: Bearer \(c)"], in: h).0
                == 200)
        for secret in [a, b, a] {
            _ = try deviceFrames(host, gateway + "/titles/match/master.m3u8", bearer: secret, in: h)
        }
        let lastRequest = Date()
        let status = try h.status(String(out.split(separator: "\n").last!))
        #expect(status.license?.playsRemaining == 0, "two plays counted, not three and not one")
        let segment =
            "/titles/match/video/"
            + (try OfflineCopy.uris(
                URL(fileURLWithPath: try #require(status.localPlaylist)).deletingLastPathComponent()
                    .appendingPathComponent("video/index.m3u8")
            ).first ?? "")
        try h.waitUntil(timeout: 60, "seat-1's session to lapse") { Date().timeIntervalSince(lastRequest) > 31 }
        do {
            _ = try deviceFrames(host, gateway + "/titles/match/master.m3u8", bearer: a, in: h)
            Issue.record("a third playback session was allowed")
        } catch {}
        let (refused, reason) = try curl(host, gateway + segment, headers: ["Authorization: Bearer \(a)"], in: h)
        #expect(refused == 403 && reason.contains("license"), "\(refused) \(reason)")
    }

    @Test func theLibraryPageListsTitlesAndShowsProgressInChromium() throws {
        let h = try Harness(name: "gw-library")
        try h.makeSample(seconds: 16)
        try h.startOrigin(throttleBytesPerSecond: 120_000)
        try h.startPipeline(schedulerArguments: ["--per-title", "1"])
        let done = try h.submit("v360p/index.m3u8", ["--name", "Finished lecture"])
        #expect(try h.waitForFinal(done).state == .completed)
        let token = try h.submit("master.m3u8", ["--name", "Match in progress", "--bitrate", "2000000"])
        let gateway = try h.startGateway(address: "127.0.0.1")
        let kiosk = try h.addDevice("kiosk")
        let (_, signed) = try h.stowctl(["devices", "sign", "kiosk", "/", "--expires", "10m"])
        let page = signed.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(page.hasPrefix(gateway + "/?"), "devices sign prints the whole URL: \(page)")
        func progress(_ dom: String) -> String? {
            guard let row = dom.range(of: "data-token=\"\(token)\"") else { return nil }
            let rest = dom[row.upperBound...]
            guard let p = rest.range(of: "class=\"progress\"") else { return nil }
            let text = rest[p.upperBound...].drop { $0 != ">" }.dropFirst().prefix { $0 != "<" }
            return String(text)
        }
        try h.waitUntil(timeout: 60, "the download to start") { (try h.status(token).segmentsDone) >= 1 }
        let first = try chromium(["--dump-dom", page], in: h)
        #expect(first.contains("Stowage library") && first.contains("Finished lecture"))
        #expect(first.contains("Match in progress"))
        #expect(
            first.contains("data-events=\"connecting\"") || first.contains("data-events=\"open\""),
            "the page's script (/app.js) ran under the content security policy and follows /events")
        let before = try #require(progress(first), "the row of the title in progress shows its progress")
        // The page renders the status's progress rounded down to a percent: wait until that figure has moved
        // (a count of segments alone could already be reached while Chromium started, and leave the percent equal).
        try h.waitUntil(timeout: 60, "the title's percent to move past \(before)") {
            "\(Int(((try h.status(token).progress) * 100).rounded(.down)))%" != before
        }
        let second = try chromium(["--dump-dom", page], in: h)
        let after = try #require(progress(second))
        #expect(before != after, "progress moved between two reads of the DOM: \(before) -> \(after)")
        let shot = h.root.appendingPathComponent("library.png")
        _ = try chromium(["--screenshot=\(shot.path)", "--window-size=1280,800", page], in: h)
        #expect(((try? FileManager.default.attributesOfItem(atPath: shot.path)[.size] as? Int) ?? 0) > 1000)
        let kept = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(
            ".build/test-output")
        try? FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: kept.appendingPathComponent("library.png"))
        try? FileManager.default.copyItem(at: shot, to: kept.appendingPathComponent("library.png"))

        // Managing is the operator's: a device may not delete a title; the admin, logged in through /login, may.
        let manage = gateway + "/api/titles/\(done)/delete"
        let (_, byDevice) = try TestMedia.shOutput(
            "curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Authorization: Bearer \(kiosk)' \(manage)", in: h.root)
        #expect(byDevice == "403")
        let jar = h.root.appendingPathComponent("cookies.txt").path
        let (_, login) = try TestMedia.shOutput(
            "curl -s -o /dev/null -w '%{http_code}' -c \(jar) -d 'secret=admin-secret-for-tests' \(gateway)/login",
            in: h.root)
        #expect(login == "303", "the admin secret logs in")
        // As the page's script does: the session's CSRF token from the page, sent back from the page's origin.
        let (_, adminPage) = try TestMedia.shOutput("curl -s -b \(jar) \(gateway)/", in: h.root)
        let meta = try #require(adminPage.range(of: "<meta name=\"csrf-token\" content=\""))
        let csrfToken = String(adminPage[meta.upperBound...].prefix { $0 != "\"" })
        let (_, withoutToken) = try TestMedia.shOutput(
            "curl -s -o /dev/null -w '%{http_code}' -X POST -b \(jar) -H 'Origin: \(gateway)' \(manage)", in: h.root)
        #expect(withoutToken == "403", "a cookie request without the CSRF token is refused")
        let (_, byAdmin) = try TestMedia.shOutput(
            "curl -s -o /dev/null -w '%{http_code}' -X POST -b \(jar) -H 'Origin: \(gateway)' "
                + "-H 'X-CSRF-Token: \(csrfToken)' \(manage)", in: h.root)
        #expect(byAdmin.hasPrefix("2"), "\(byAdmin)")
        let (gone, _) = try h.stowctl(["status", done])
        #expect(gone == 1, "deleted by the operator from the library page's API")
    }

    /// `/events` (server-sent events) follows a title while it downloads from a paced origin: several progress
    /// events, their bytes and progress never going back, up to the completed title.
    @Test func theEventStreamDeliversRisingProgressForADownloadingTitle() throws {
        let h = try Harness(name: "gw-events")
        try h.makeSample(seconds: 12)
        try h.startOrigin(throttleBytesPerSecond: 200_000)
        try h.startPipeline(schedulerArguments: ["--per-title", "1"])
        let gateway = try h.startGateway(address: "127.0.0.1")
        let secret = try h.addDevice("kiosk")
        let stream = h.root.appendingPathComponent("events.out")
        try h.spawn(
            "events", "/usr/bin/curl", ["-sN", "-H", "Authorization: Bearer \(secret)", gateway + "/events"],
            stdout: stream)
        try h.waitUntil(timeout: 20, "the event stream to open") {
            ((try? String(contentsOf: stream, encoding: .utf8)) ?? "").contains(": stowage events")
        }
        let token = try h.submit("master.m3u8")
        let final = try h.waitForFinal(token)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        var seen: [TitleStatus] = []
        try h.waitUntil(timeout: 20, "the completed title on the event stream") {
            let text = (try? String(contentsOf: stream, encoding: .utf8)) ?? ""
            seen = try text.split(separator: "\n").filter { $0.hasPrefix("data: ") }.map {
                try JSONDecoder().decode(TitleStatus.self, from: Data($0.dropFirst(6).utf8))
            }.filter { $0.token == token }
            return seen.contains { $0.state == .completed }
        }
        let bytes = seen.map(\.bytesDownloaded), progress = seen.map(\.progress)
        #expect(zip(bytes, bytes.dropFirst()).allSatisfy { $0 <= $1 }, "bytes never go back: \(bytes)")
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0 <= $1 }, "progress never goes back: \(progress)")
        let downloading = seen.filter { $0.state == .downloading }
        #expect(
            Set(downloading.map(\.bytesDownloaded)).count >= 3,
            "several progress events while downloading, each with more bytes: \(bytes)")
        #expect(Set(downloading.map(\.segmentsDone)).count >= 2, "segments done rise too")
        #expect(seen.last?.state == .completed && seen.last?.bytesDownloaded == final.bytesDownloaded)
        print("[measure] gw-events: \(seen.count) events, \(downloading.count) while downloading")
    }

    /// Headless Chromium (Debian `chromium`), failing the test when it is missing.
    func chromium(_ arguments: [String], in h: Harness) throws -> String {
        let binary = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let binary else {
            throw HarnessError("chromium is not installed (Deploy/test.sh installs Debian's chromium)")
        }
        let args =
            [
                // --timeout, not --virtual-time-budget: the page keeps its event stream open, which a budget waits for.
                "--headless=new", "--no-sandbox", "--disable-gpu", "--timeout=5000",
                "--user-data-dir=\(h.root.appendingPathComponent("chromium").path)",
            ] + arguments
        let (status, out) = try TestMedia.shOutput(
            "timeout 90 " + ([binary] + args).map(Self.quoted).joined(separator: " ") + " 2>/dev/null", in: h.root)
        guard status == 0 else { throw HarnessError("chromium exited \(status)") }
        return out
    }

    @Test func tlsServesHTTPSAndStillAsksForACredential() throws {
        let h = try Harness(name: "gw-tls")
        try FileManager.default.createDirectory(at: h.media, withIntermediateDirectories: true)
        try TestMedia.sh(
            "openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 1 -subj /CN=127.0.0.1 "
                + "2>/dev/null", in: h.root)
        try h.startScheduler()
        let gateway = try h.startGateway(
            address: "127.0.0.1",
            tls: (h.root.appendingPathComponent("cert.pem"), h.root.appendingPathComponent("key.pem")))
        #expect(gateway.hasPrefix("https://"))
        let port = try #require(URL(string: gateway)?.port)
        let secret = try h.addDevice("phone")
        let url = "https://127.0.0.1:\(port)/api/titles"
        let (_, without) = try TestMedia.shOutput("curl -sk -o /dev/null -w '%{http_code}' \(url)", in: h.root)
        #expect(without == "401")
        let (_, with) = try TestMedia.shOutput(
            "curl -sk -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer \(secret)' \(url)", in: h.root)
        #expect(with == "200", "served over TLS to a device with its secret")
        let (_, plain) = try TestMedia.shOutput(
            "curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:\(port)/api/titles", in: h.root)
        #expect(plain != "200", "no plain HTTP on the TLS port")
        let log = (try? String(contentsOf: h.root.appendingPathComponent("gateway.log"), encoding: .utf8)) ?? ""
        #expect(!log.contains("serving plain HTTP"), "no warning with TLS")
    }
}
