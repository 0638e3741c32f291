import Foundation
import Hummingbird
import StowagePlayback
import StowageProtocol

extension Gateway {
    /// The largest subtitle rendition joined into one file: 8 MiB (hours of dense subtitles are well under 1 MiB).
    static let maxSubtitleBytes = 8 << 20

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
    /// joined into one WebVTT file (``WebVTTJoin``); counts no play (the video's playlists and media do).
    func subtitles(_ language: String, token: String) throws -> Response {
        let directory = titlesRootPath + "/" + token
        guard let master = localMaster(directory) else {
            throw GatewayError.notFound("this title has no HLS master playlist with subtitles")
        }
        guard let rendition = master.subtitles.first(where: { $0.language == language }) else {
            let have = master.subtitles.map(\.language).joined(separator: ", ")
            throw GatewayError.notFound(
                "no subtitles in '\(language)' (this title has: \(have.isEmpty ? "none" : have))")
        }
        guard let playlistPath = TitlePath.relative(rawPath: rendition.uri),
            let text = try? String(contentsOfFile: directory + "/" + playlistPath, encoding: .utf8),
            let uris = LocalMaster.segments(ofMedia: text)
        else { throw GatewayError.notFound("the '\(language)' subtitles' playlist cannot be read") }
        let folder = (playlistPath as NSString).deletingLastPathComponent
        var segments: [String] = [], total = 0
        for uri in uris {
            guard let relative = TitlePath.relative(rawPath: folder.isEmpty ? uri : folder + "/" + uri),
                let data = FileManager.default.contents(atPath: directory + "/" + relative)
            else { throw GatewayError.notFound("a segment of the '\(language)' subtitles is missing: \(uri)") }
            total += data.count
            guard total <= Self.maxSubtitleBytes else {
                throw GatewayError(
                    .contentTooLarge, .refused, "the '\(language)' subtitles exceed \(Self.maxSubtitleBytes >> 20) MiB")
            }
            segments.append(String(decoding: data, as: UTF8.self))
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/vtt; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        return Response(
            status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: WebVTTJoin.join(segments)))
        )
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
    func localMaster(_ directory: String) -> LocalMaster? {
        (try? String(contentsOfFile: directory + "/master.m3u8", encoding: .utf8)).flatMap(LocalMaster.init(text:))
    }
}
