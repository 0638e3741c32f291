import Foundation
import Hummingbird
import StowageOfflineCopy
import StowagePlayback
import StowageProtocol

extension Gateway {
    /// `GET /play/<token-or-id>`: the play page of a title in the library (``LibraryVisibility``: playable now);
    /// any other title is 404 to everyone, as it is not in the library.
    func playPage(_ request: Request, identity: Identity) async throws -> Response {
        guard identity.principal.isPeer == false else { throw Self.peerRefusal("play page") }
        let raw = String(request.uri.path.dropFirst(PlayPage.prefix.count))
        guard let key = raw.removingPercentEncoding, !key.isEmpty, TitlePath.relative(rawPath: key) == key else {
            throw GatewayError.notFound("no title \(raw)")
        }
        let status = try await titles.title(key)
        let entry = entry(status)
        guard entry.shelf == .playable else {
            throw GatewayError.notFound("\(status.name ?? key) is not in the library (it cannot be played now)")
        }
        let (_, setCookie) = try pageSession(request, identity: identity)
        var page = Self.html(PlayPage.render(entry, principal: identity.principal))
        if let setCookie { page.headers[.setCookie] = setCookie }
        return page
    }

    /// `GET /titles/<key>/subtitles/<lang>.vtt`: the offline copy's subtitle rendition in `lang`, its segments
    /// joined into one WebVTT file (``TitleSubtitles``); counts no play (the video's playlists and media do).
    func subtitles(_ language: String, token: String) throws -> Response {
        let text: String
        do {
            text = try TitleSubtitles.webVTT(language: language, directory: titlesRootPath + "/" + token)
        } catch {
            switch error.kind {
            case .notFound: throw GatewayError.notFound(error.message)
            case .tooLarge: throw GatewayError(.contentTooLarge, .refused, error.message)
            }
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/vtt; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// `GET /titles/<key>/master-audio-<lang>.m3u8`: the master narrowed to one audio language
    /// (``LocalMaster/narrowed(toAudio:)``), for players that offer no audio choice. Opens a play as the master
    /// does.
    func audioMaster(
        _ language: String, route: TitleRoute, token: String, identity: Identity
    ) async throws -> Response {
        let directory = titlesRootPath + "/" + token
        guard let master = localMaster(directory) else {
            throw GatewayError.notFound("this title has no HLS master playlist with audio renditions")
        }
        guard let text = master.narrowed(toAudio: language) else {
            let have = master.audio.map(\.language).joined(separator: ", ")
            throw GatewayError.notFound("no audio in '\(language)' (this title has: \(have.isEmpty ? "none" : have))")
        }
        if !identity.principal.isPeer {
            _ = try await plays.open(
                identity.principal, token: token, kind: .playlist, onDisk: true, directory: directory, now: clock())
        }
        let rewriter = PlaylistRewriter(prefix: "/titles/\(route.rawKey)/", query: identity.signedQuery)
        var headers = HTTPFields()
        headers[.contentType] = "application/vnd.apple.mpegurl"
        headers[.cacheControl] = "no-cache"
        return Response(
            status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: rewriter.rewrite(text))))
    }

    /// The offline copy's master playlist (`master.m3u8`), when it is one.
    func localMaster(_ directory: String) -> LocalMaster? { TitleSubtitles.master(directory) }
}
