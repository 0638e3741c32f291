import Foundation
import Hummingbird
import StowagePlayback
import StowageProtocol

extension Gateway {
    /// `/titles/<key>/…`: the entry redirect, content keys, and the title's files (as ``FileSlice``s when
    /// `zeroCopy`).
    func title(
        _ request: Request, identity: Identity, context: some RequestContext, zeroCopy: Bool = false
    ) async throws -> Response {
        let (rawKey, remainder) = Self.titleParts(request.uri.path)
        if request.method == .post, remainder == "clearkey" {
            return try await clearKeyLicense(request, rawKey: String(rawKey), identity: identity)
        }
        guard request.method == .get || request.method == .head else {
            throw GatewayError(.methodNotAllowed, .refused, "only GET and HEAD (POST for clearkey)")
        }
        let rawKeyText = String(rawKey)
        guard let key = rawKey.utf8.contains(UInt8(ascii: "%")) ? rawKeyText.removingPercentEncoding : rawKeyText,
            !key.isEmpty, TitlePath.relative(rawPath: key) == key
        else { throw GatewayError.notFound("no title \(rawKey)") }
        let status = try await titles.title(key)
        let token = status.token
        let prefix = "/titles/\(rawKey)/"
        if remainder.isEmpty {
            let query = identity.signedQuery.map { "?" + $0 } ?? ""
            return Self.redirect(prefix + entryPlaylist(status) + query, status: .found)
        }
        if remainder == Self.peerManifestName { return try await peerManifest(token, identity: identity) }
        // A peer box fills from the title's files: never a play, never a key (it licenses its own).
        let plays = identity.principal.isPeer ? nil : self.plays
        if remainder.hasPrefix("keys/") {
            guard plays != nil else { throw Self.peerRefusal("content keys") }
            return try await contentKey(remainder, token: token, identity: identity)
        }
        guard let relative = TitlePath.relative(rawPath: remainder), !relative.isEmpty else {
            throw GatewayError(.badRequest, .refused, "that path leaves the title's folder")
        }
        let directory = titlesRootPath + "/" + token
        var streaming: StreamingSource?, meter: PlayMeter?
        if let plays, let kind = Self.kind(of: relative) {
            // A title still downloading: its playlists come with the play's plan, so the play counts at once. (A
            // name refused counts nothing: it is answered 404.)
            var onDisk = true
            if kind == .playlist, case .missing = TitlePath.served(relative, inRoot: directory) { onDisk = false }
            (streaming, meter) = try await plays.open(
                identity.principal, token: token, kind: kind, onDisk: onDisk, directory: directory, now: clock())
        } else if let plays {
            streaming = plays.streamingSource(token)
        }
        let files = TitleFileServer(rootPath: directory, streaming: streaming, zeroCopy: zeroCopy, playlists: playlists)
        let rewriter = PlaylistRewriter(prefix: prefix, query: identity.signedQuery)
        switch await files.serve(relative, request: request, context: context, rewriter: rewriter) {
        case .response(let response, let served):
            if let served, let meter { meter.served("/" + served.relative, sent: served.sent, size: served.size) }
            return response
        case .failure(let status, let code, let message):
            throw GatewayError(status, code, message)
        }
    }

    /// `POST /titles/<key>/clearkey`: a W3C Clear Key license for a DASH title, inside an authorised session
    /// (like `keys/N`: the first key counts the play).
    private func clearKeyLicense(_ request: Request, rawKey: String, identity: Identity) async throws -> Response {
        guard let key = rawKey.removingPercentEncoding, !key.isEmpty else { throw GatewayError.notFound("no title") }
        guard !identity.principal.isPeer else { throw Self.peerRefusal("Clear Key licenses") }
        let token = try await titles.title(key).token
        _ = try await plays.open(
            identity.principal, token: token, kind: .media, onDisk: true, directory: titlesRootPath + "/" + token,
            now: clock())
        let verdict = try await backend.playable(token: token)
        let body = try? await request.body.collect(upTo: 64 * 1024)
        let backend = self.backend
        return await ClearKeyLicense.answer(body, keyIDs: verdict.clearKeyIDs ?? [:]) { index in
            do { return .success(try await backend.key(token: token, index: index)) } catch {
                return .failure(.init("\(error)"))
            }
        }
    }

    /// `/titles/<key>/keys/N`: only inside an authorised session (the first key counts the play).
    private func contentKey(_ remainder: String, token: String, identity: Identity) async throws -> Response {
        guard let index = Int(remainder.dropFirst("keys/".count)), index >= 0 else {
            throw GatewayError.notFound("no such key")
        }
        _ = try await plays.open(
            identity.principal, token: token, kind: .media, onDisk: true, directory: titlesRootPath + "/" + token,
            now: clock())
        let key = try await backend.key(token: token, index: index)
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: key)))
    }

    /// `/titles/<key>/manifest.json`: the title's plan with each verified file's size and SHA-256, only for a
    /// peer box's credential (another box fills from it); 403 `forbidden` for devices and the admin.
    private func peerManifest(_ token: String, identity: Identity) async throws -> Response {
        guard identity.principal.isPeer else {
            throw GatewayError(
                .forbidden, .forbidden,
                "manifest.json is for peer boxes only (a credential from `stowctl devices add NAME --peer`)")
        }
        return Self.json(try await backend.peerManifest(token: token))
    }

    /// The raw key and what follows its slash (empty when nothing does) of a `/titles/<key>/<remainder>` path.
    static func titleParts(_ path: String) -> (rawKey: Substring, remainder: String) {
        let rest = path.dropFirst("/titles/".count)
        guard let slash = rest.utf8.firstIndex(of: UInt8(ascii: "/")) else { return (rest, "") }
        return (rest[..<slash], String(rest[rest.index(after: slash)...]))
    }

    /// The file name of a title's manifest for peers.
    static let peerManifestName = "manifest.json"

    /// What a peer's credential may not have: 403 `forbidden`.
    static func peerRefusal(_ what: String) -> GatewayError {
        GatewayError(.forbidden, .forbidden, "a peer box gets no \(what): it acquires its own license")
    }

    /// How a file counts for plays: playlists open sessions, media count, posters and pictures neither.
    static func kind(of relative: String) -> PlaybackSessions.Kind? {
        if ContentTypes.isPlaylist(relative) { return .playlist }
        if ContentTypes.fileName(relative).lowercased().hasPrefix("poster.")
            || ["jpg", "jpeg", "png", "webp"].contains(ContentTypes.fileExtension(relative))
        {
            return nil
        }
        return .media
    }

    /// The entry playlist's file name: the status's `localPlaylist`, a DASH `manifest.mpd`, or `master.m3u8`.
    func entryPlaylist(_ status: TitleStatus) -> String {
        if let local = status.localPlaylist, let name = local.split(separator: "/").last, !name.isEmpty {
            return String(name)
        }
        let directory = configuration.titlesRoot.appendingPathComponent(status.token)
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent("manifest.mpd").path) {
            return "manifest.mpd"
        }
        return "master.m3u8"
    }

    /// The poster's path under the gateway, when the title has a `poster.*` file.
    func posterPath(_ status: TitleStatus) -> String? {
        let directory = configuration.titlesRoot.appendingPathComponent(status.token)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        guard let poster = names.sorted().first(where: { $0.hasPrefix("poster.") && !$0.hasSuffix(".part") }) else {
            return nil
        }
        return "/titles/\(status.token)/\(poster)"
    }

    /// `POST /api/titles/<token>/pause|resume|renew|delete` (admin only).
    func manage(_ request: Request, identity: Identity) async throws -> Response {
        let parts = request.uri.path.split(separator: "/").map(String.init)
        guard parts.count == 4, let action = TitleAction(rawValue: parts[3]) else {
            throw GatewayError.notFound("no such action")
        }
        guard request.method == .post else { throw GatewayError(.methodNotAllowed, .refused, "use POST") }
        guard identity.principal.isAdmin else {
            throw GatewayError(.forbidden, .refused, "only the admin may \(action.rawValue) titles")
        }
        let token = parts[2]
        try await backend.manage(action, token: token)
        titles.invalidate()
        logger.info("manage", metadata: ["token": "\(token)", "action": "\(action.rawValue)"])
        return Self.json(["ok": true])
    }
}
