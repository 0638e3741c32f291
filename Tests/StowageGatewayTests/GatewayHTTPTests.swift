import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import StowageProtocol
import Synchronization
import Testing

@testable import StowageGateway

/// A scheduler stand-in: one title `tok` (id `movie`), device secret `good` for device `tv`, peer secret `peer` for
/// the peer box `box-b`, one Clear Key key; it counts the credential checks and the plays it is asked for.
final class FakeBackend: GatewayBackend {
    let plays = Mutex(0)
    let authentications = Mutex(0)
    let status: TitleStatus
    /// Why `status`, `playable` and `playOn` say the title cannot be played (nil: playable), as the scheduler would.
    let unplayable = Mutex<NotPlayableReason?>(nil)
    /// The title was deleted: `status`, `playable` and `playOn` answer `not-found`.
    let deleted = Mutex(false)
    /// What `titleEvents` yields (then it ends).
    let events = Mutex<[TitleStatus]>([])
    /// No scheduler answers (a takeover): credentials, statuses, plays and reports fail as the real backend's do (503).
    let silent = Mutex(false)
    /// The ids of the play-time reports applied, and their seconds, in order (a repeated id is applied once).
    let reports = Mutex<[(id: String, seconds: Double)]>([])
    /// The ids of the plays counted (a repeated id counts once).
    let playIDs = Mutex<[String]>([])

    /// Throws the backend's 503 while ``silent``.
    private func answering() throws {
        if silent.withLock({ $0 }) {
            throw GatewayError(.serviceUnavailable, .internal, "no scheduler leads among the endpoints given")
        }
    }

    /// The title's one Clear Key key ID (16 zero bytes) and its key index: `key` answers index N with 16 bytes N.
    static let clearKeyID = String(repeating: "0", count: 32)
    static let clearKeyIndex = 7

    /// `playable` false: the title cannot be played offline (for `/resolve`'s fallback).
    init(playable: Bool = true, localPlaylist: String = "tok/master.m3u8", error: TitleError? = nil) {
        status = TitleStatus(
            token: "tok", url: "https://cdn.example/movie/master.m3u8", name: "Movie", state: .completed,
            progress: 1, bytesDownloaded: 1, bytesExpected: 1, segmentsDone: 1, segmentsTotal: 1, requestedAt: nil,
            startedAt: nil, endedAt: nil, license: nil, localPlaylist: localPlaylist, playableOffline: playable,
            error: error)
    }

    /// The scheduler's verdict on the title now.
    private func verdict() throws -> PlayAuthorization {
        if deleted.withLock({ $0 }) { throw GatewayError(TitleError(code: .notFound, message: "no title")) }
        guard let reason = unplayable.withLock({ $0 }) else {
            var verdict = PlayAuthorization(playable: true, reason: nil, directory: nil, entryPlaylist: "master.m3u8")
            verdict.clearKeyIDs = [Self.clearKeyID: Self.clearKeyIndex]
            return verdict
        }
        var refusal = PlayAuthorization(playable: false, reason: reason.message, directory: nil, entryPlaylist: nil)
        refusal.notPlayable = reason
        return refusal
    }

    func authenticate(_ credential: DeviceCredential) async throws -> DevicePrincipal {
        authentications.withLock { $0 += 1 }
        try answering()
        if credential == .secret("peer") { return DevicePrincipal(device: "box-b", peer: true) }
        if credential == .signed(device: "tv", path: "/", expires: 4e9, signature: "ab") {
            return DevicePrincipal(device: "tv")
        }
        guard credential == .secret("good") else { throw GatewayError(TitleError(code: .unauthorized, message: "no")) }
        return DevicePrincipal(device: "tv")
    }
    func peerManifest(token: String) async throws -> PeerManifest {
        guard token == "tok" else { throw GatewayError(TitleError(code: .notFound, message: "no title")) }
        let file = PlannedResource(
            kind: .segment, rendition: 0, url: "https://cdn.example/movie/0001.ts", rangeOffset: nil,
            rangeLength: nil, localPath: "video/0001.ts", container: .mpegTS, encrypted: true, duration: 4)
        let plan = ResolvedPlan(masterPlaylist: "#EXTM3U\n", renditions: [], resources: [], bytesEstimate: nil)
        return PeerManifest(
            token: "tok", id: "movie", name: "Movie", source: status.url, entry: "master.m3u8", plan: plan,
            files: [PeerFile(planned: file, size: 1000, sha256: String(repeating: "a", count: 64))])
    }
    func lookup(id: String?, url: String?) async throws -> TitleStatus {
        guard id == "movie" || url == status.url else { throw GatewayError(TitleError(code: .notFound, message: "no")) }
        var s = status
        s.id = "movie"
        return s
    }
    func status(token: String) async throws -> TitleStatus {
        try answering()
        guard token == "tok", !deleted.withLock({ $0 }) else {
            throw GatewayError(TitleError(code: .notFound, message: "no title"))
        }
        var status = self.status
        if let reason = unplayable.withLock({ $0 }) {
            status.playableOffline = false
            status.notPlayableReason = reason
        }
        return status
    }
    func list() async throws -> [TitleStatus] { [status] }
    func playable(token: String) async throws -> PlayAuthorization { try verdict() }
    func playOn(token: String, device: String?, playID: String) async throws -> PlayAuthorization {
        try answering()
        let verdict = try verdict()
        let counted = playIDs.withLock { ids in
            defer { ids.append(playID) }
            return ids.contains(playID)
        }
        if verdict.playable && !counted { plays.withLock { $0 += 1 } }
        return verdict
    }
    func key(token: String, index: Int) async throws -> [UInt8] { Array(repeating: UInt8(index), count: 16) }
    func played(token: String, seconds: Double, reportID: String) async throws {
        try answering()
        reports.withLock { if !$0.contains(where: { $0.id == reportID }) { $0.append((reportID, seconds)) } }
    }
    func license(token: String) async throws -> LicenseReport {
        LicenseReport(
            token: token, license: nil, licenseURL: nil, forceExpired: false, renewalSuggested: false, renewing: false,
            lastError: nil, playable: true, reason: nil)
    }
    func manage(_ action: TitleAction, token: String) async throws {}
    /// Pairing: code `pair-ok` redeems once for `tv` (as the scheduler burns it); any other is refused.
    let pairingUsed = Mutex(false)
    func redeemPairing(code: String) async throws -> PairingGrant {
        guard code == "pair-ok",
            !pairingUsed.withLock({ used in
                defer { used = true }
                return used
            })
        else {
            throw GatewayError(TitleError(code: .unauthorized, message: "this pairing link was used already"))
        }
        return PairingGrant(device: "tv", path: "/", expires: 4e9, signature: "ab")
    }
    func pairDevice(name: String) async throws -> DevicePairing {
        DevicePairing(name: name, code: "pair-ok", expiresAt: "2026-11-27T12:00:00Z", validSeconds: 600)
    }
    func devices() async throws -> [DeviceInfo] {
        [DeviceInfo(name: "tv", createdAt: "2026-11-27T10:00:00Z", revokedAt: nil, lastPlays: [])]
    }
    func revokeDevice(name: String) async throws {}
    func titleEvents() -> AsyncStream<TitleEvent> {
        let statuses = events.withLock { $0 }
        return AsyncStream { stream in
            for status in statuses { stream.yield(TitleEvent(kind: "state", status: status)) }
            stream.finish()
        }
    }
}

@Suite("Gateway over HTTP")
struct GatewayHTTPTests {
    static func titles() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gw-\(UUID().uuidString)")
        let dir = root.appendingPathComponent("tok/video")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nvideo/index.m3u8\n".write(
            to: root.appendingPathComponent("tok/master.m3u8"), atomically: true, encoding: .utf8)
        try "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"/keys/0\"\n#EXTINF:4.0,\n0001.ts\n#EXT-X-ENDLIST\n".write(
            to: dir.appendingPathComponent("index.m3u8"), atomically: true, encoding: .utf8)
        try Data((0..<1000).map { UInt8($0 % 256) }).write(to: dir.appendingPathComponent("0001.ts"))
        return root
    }

    @Test func servesATitleWithRangesAndCountsOnePlay() async throws {
        let root = try Self.titles()
        defer { try? FileManager.default.removeItem(at: root) }
        let backend = FakeBackend()
        let gateway = Gateway(
            configuration: .init(titlesRoot: root, adminSecret: "admin-secret", corsOrigins: ["http://tv.lan"]),
            backend: backend,
            logger: Logger(label: "test"), clock: { 0 })
        let app = try gateway.application(listen: ListenOptions(host: "127.0.0.1", port: 0)) { _ in }
        let auth: HTTPFields = [.authorization: "Bearer good"]
        // Live: title files go out through the channel's sendfile writer, as in the real gateway.
        try await app.test(.live) { client in
            try await client.execute(uri: "/titles/tok/video/0001.ts", method: .get) { response in
                #expect(response.status == .unauthorized)
                #expect(String(buffer: response.body).contains("\"code\":\"unauthorized\""))
            }
            try await client.execute(uri: "/titles/tok/", method: .get, headers: auth) { response in
                #expect(response.status == .found)
                #expect(response.headers[.location] == "/titles/tok/master.m3u8")
            }
            try await client.execute(uri: "/titles/tok/video/index.m3u8", method: .get, headers: auth) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/vnd.apple.mpegurl")
                #expect(String(buffer: response.body).contains("URI=\"/titles/tok/keys/0\""))
            }
            #expect(backend.plays.withLock { $0 } == 0, "playlists count nothing")
            var ranged = auth
            ranged[.range] = "bytes=10-19"
            try await client.execute(uri: "/titles/tok/video/0001.ts", method: .get, headers: ranged) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 10-19/1000")
                #expect(response.headers[.contentType] == "video/mp2t")
                #expect(Array(buffer: response.body) == (10..<20).map { UInt8($0) })
            }
            try await client.execute(uri: "/titles/movie/keys/0", method: .get, headers: auth) { response in
                #expect(response.status == .ok)
                #expect(response.body.readableBytes == 16)
            }
            #expect(backend.plays.withLock { $0 } == 1, "one play")
            ranged[.range] = "bytes=5000-"
            try await client.execute(uri: "/titles/tok/video/0001.ts", method: .get, headers: ranged) { response in
                #expect(response.status == .rangeNotSatisfiable)
                #expect(response.headers[.contentRange] == "bytes */1000")
            }
            try await client.execute(uri: "/titles/tok/..%2F..%2Fetc/passwd", method: .get, headers: auth) { r in
                #expect(r.status == .badRequest)
            }
            try await client.execute(uri: "/titles/nope/", method: .get, headers: auth) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body).contains("\"code\":\"not-found\""))
            }
            try await client.execute(uri: "/api/titles/tok/pause", method: .post, headers: auth) { response in
                #expect(response.status == .forbidden, "devices may not manage")
            }
            var admin = HTTPFields()
            admin[.authorization] = "Bearer admin-secret"
            admin[.origin] = "http://tv.lan"
            try await client.execute(uri: "/api/titles/tok/pause", method: .post, headers: admin) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.accessControlAllowOrigin] == "http://tv.lan")
            }
            var json = auth
            json[.accept] = "application/json"
            try await client.execute(uri: "/resolve?id=movie", method: .get, headers: json) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("/titles/movie/master.m3u8"))
            }
            try await client.execute(uri: "/", method: .get, headers: auth) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("<title>Stowage library</title>"))
                #expect(page.contains("<li class=\"title\" data-token=\"tok\" data-shelf=\"playable\""))
                #expect(page.contains("<a class=\"play\" href=\"/play/tok\">"), "a completed title is played")
            }
            try await client.execute(uri: "/play/movie", method: .get, headers: auth) { response in
                let page = String(buffer: response.body)
                #expect(response.status == .ok)
                #expect(page.contains("data-src=\"/titles/tok/master.m3u8\"") && page.contains("src=\"/play.js\""))
            }
            try await client.execute(uri: "/titles/tok/subtitles/fr.vtt", method: .get, headers: auth) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body).contains("no subtitles in 'fr' (this title has: none)"))
            }
            try await client.execute(uri: "/", method: .get, headers: [.accept: "text/html"]) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/login")
            }
        }
    }

    @Test func loginSetsASessionCookie() async throws {
        let root = try Self.titles()
        defer { try? FileManager.default.removeItem(at: root) }
        let gateway = Gateway(
            configuration: .init(titlesRoot: root), backend: FakeBackend(), logger: Logger(label: "test"),
            clock: { 0 })
        let app = try gateway.application(listen: ListenOptions(host: "127.0.0.1", port: 0)) { _ in }
        try await app.test(.router) { client in
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let cookie = try await client.execute(
                uri: "/login", method: .post, headers: form, body: ByteBuffer(string: "secret=good")
            ) { response in
                #expect(response.status == .seeOther)
                let setCookie = response.headers[.setCookie] ?? ""
                #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax"))
                return String(setCookie.split(separator: ";")[0])
            }
            try await client.execute(uri: "/api/titles", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("\"token\":\"tok\""))
            }
            try await client.execute(
                uri: "/login", method: .post, headers: form,
                body: ByteBuffer(string: "secret=" + String(repeating: "x", count: 5000))
            ) { response in
                #expect(response.status == .contentTooLarge)
            }
        }
    }
}
