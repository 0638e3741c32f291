import Foundation
import Hummingbird
import StowageOfflineCopy
import StowagePlayback
import StowageProtocol
import StowageSubtitles

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

    /// `GET /titles/<key>/subtitles/<lang>.vtt` (or `.srt`): the title's subtitles in `lang` as one file. The
    /// file written when the title completed (hashed and verified with the rest) when it is there; else (a title
    /// completed before, or whose subtitles could not be converted) read from the copy's own subtitle files by
    /// ``TitleSubtitles``, for HLS and DASH titles alike. Counts no play (the video's playlists and media do).
    func subtitles(_ language: String, srt: Bool, token: String) throws -> Response {
        let directory = titlesRootPath + "/" + token
        let name = "\(TitleSubtitles.folder)/\(language).\(srt ? "srt" : "vtt")"
        var body: String
        if case .file(let path, _) = TitlePath.served(name, inRoot: directory),
            let data = FileManager.default.contents(atPath: path)
        {
            body = String(decoding: data, as: UTF8.self)
        } else {
            do {
                let cues = try TitleSubtitles.cues(language: language, inTitleFolder: directory)
                body = srt ? SRTText.document(cues) : WebVTTText.document(cues)
            } catch {
                throw Self.subtitleRefusal(error, language: language)
            }
        }
        var headers = HTTPFields()
        headers[.contentType] = srt ? "application/x-subrip; charset=utf-8" : "text/vtt; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        if srt { headers[.contentDisposition] = "inline; filename=\"\(language).srt\"" }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// The answer to subtitles that cannot be read: 404 when the title has none in that language, 413 past the
    /// size limit, else 422 naming the file at fault.
    static func subtitleRefusal(_ error: SubtitleError, language: String) -> GatewayError {
        switch error.code {
        case .noTrack: GatewayError.notFound(error.message)
        case .tooLarge: GatewayError(.contentTooLarge, .refused, error.description)
        case .missingFile: GatewayError.notFound("a file of the '\(language)' subtitles is missing: \(error.file)")
        case .malformed, .unsupported:
            GatewayError(
                .unprocessableContent, .integrity, "the '\(language)' subtitles cannot be converted: \(error)")
        }
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
    func localMaster(_ directory: String) -> LocalMaster? { LocalMaster(titleFolder: directory) }
}
