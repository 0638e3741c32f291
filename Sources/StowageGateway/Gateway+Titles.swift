import Foundation
import Hummingbird
import StowagePlayback
import StowageProtocol

extension Gateway {
    /// `/titles/<key>/…`: classified once (``TitleRoute``), then each endpoint's own handler; the title is
    /// looked up first, so an unknown title is 404 whatever follows its key.
    func title(
        _ request: Request, identity: Identity, context: some RequestContext, zeroCopy: Bool = false
    ) async throws -> Response {
        let route = TitleRoute(method: request.method, path: request.uri.path)
        if let refusal = route.methodRefusal(request.method) { throw refusal }
        guard let key = route.key else { throw GatewayError.notFound("no title \(route.rawKey)") }
        let peer = identity.principal.isPeer
        if route.endpoint == .clearKey, peer { throw Self.peerRefusal("Clear Key licenses") }
        let status = try await titles.title(key)
        switch route.endpoint {
        case .entry:
            let query = identity.signedQuery.map { "?" + $0 } ?? ""
            return Self.redirect("/titles/\(route.rawKey)/" + entryPlaylist(status) + query, status: .found)
        case .clearKey:
            return try await clearKeyLicense(request, token: status.token, identity: identity)
        case .peerManifest:
            return try await peerManifest(status.token, identity: identity)
        case .contentKey(let index):
            return try await contentKey(index, token: status.token, identity: identity)
        case .subtitles(let language, let srt):
            return try subtitles(language, srt: srt, token: status.token)
        case .audioMaster(let language):
            return try await audioMaster(language, route: route, token: status.token, identity: identity)
        case .file(let relative):
            return try await file(
                relative, route: route, token: status.token, request: request, identity: identity, context: context,
                zeroCopy: zeroCopy)
        case .invalid(let why):
            // Whatever is under `keys/` is a key to a peer, which gets none.
            throw why == .keyIndex && peer ? Self.peerRefusal("content keys") : why.error
        }
    }

    /// `/titles/<key>/<relative>`: one of the title's files (as a ``FileSlice`` when `zeroCopy`); a device's
    /// playlists open its play, its first media file counts it.
    private func file(
        _ relative: String, route: TitleRoute, token: String, request: Request, identity: Identity,
        context: some RequestContext, zeroCopy: Bool
    ) async throws -> Response {
        // A peer box fills from the title's files: never a play.
        let plays = identity.principal.isPeer ? nil : self.plays
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
        let rewriter = PlaylistRewriter(prefix: "/titles/\(route.rawKey)/", query: identity.signedQuery)
        switch await files.serve(relative, request: request, context: context, rewriter: rewriter) {
        case .response(let response, let served):
            if let served, let meter { meter.served("/" + served.relative, sent: served.sent, size: served.size) }
            return response
        case .failure(let status, let code, let message):
            throw GatewayError(status, code, message)
        }
    }

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

    /// The entry playlist's path under the title: the status's `localPlaylist` from the title's folder on (a title
    /// submitted as a media playlist has it in a rendition's folder; the scheduler's home may be mounted elsewhere
    /// than the gateway's, so the path is cut at the token), a DASH `manifest.mpd`, or `master.m3u8`.
    func entryPlaylist(_ status: TitleStatus) -> String {
        if let local = status.localPlaylist {
            let parts = local.split(separator: "/")
            if let at = parts.lastIndex(where: { $0 == status.token }), at + 1 < parts.count {
                return parts[(at + 1)...].joined(separator: "/")
            }
            if let name = parts.last { return String(name) }
        }
        let directory = configuration.titlesRoot.appendingPathComponent(status.token)
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent("manifest.mpd").path) {
            return "manifest.mpd"
        }
        return "master.m3u8"
    }

    /// The poster's path under the gateway: the title's `poster.*` (`submit --poster`), else the frame taken from it
    /// (``PosterFrames``), else nil.
    func posterPath(_ status: TitleStatus) -> String? {
        let directory = configuration.titlesRoot.appendingPathComponent(status.token)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let poster = names.sorted().first { $0.hasPrefix("poster.") && !$0.hasSuffix(".part") }
        guard let name = poster ?? (names.contains(PosterFrames.fileName) ? PosterFrames.fileName : nil) else {
            return nil
        }
        return "/titles/\(status.token)/\(name)"
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
