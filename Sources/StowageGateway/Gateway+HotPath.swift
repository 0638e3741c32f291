import Foundation
import HTTPTypes
import StowagePlayback
import StowageProtocol

extension Gateway {
    /// A title file answered on the event loop that read the request (``TitleHotPath``): the head to write,
    /// with the ``FileSlice`` the connection sends with `sendfile`.
    struct HotAnswer: Sendable {
        var head: HTTPResponse
    }

    /// The `Server` field of every answer.
    static let serverName = "stowage-gateway"

    /// The answer to a player's plain request for a segment of a play already under way, made from what the
    /// gateway already knows, or nil: the request goes to the router, which answers everything (and this too).
    ///
    /// The router's path through Hummingbird, Swift concurrency and the middleware costs as much per request as
    /// all the gateway's own rules, and held it under half of what nginx serves from the same files
    /// (Benchmarks/README.md). The bulk of a play is its segments, each asking nothing new: the same credential,
    /// title and authorised session as the one before. Those are answered here, by the same rules: a bearer
    /// credential the cache holds good (``Authenticator/knownBearer(_:)``), a title it holds
    /// (``TitleCache/known(_:)``), what may be served (``TitlePath/served(_:inRoot:)``: a regular file with one
    /// link, no symbolic link on the way), a session whose play was counted and authorised and whose title is
    /// still playable (``PlayState/admitCounted(_:token:now:)``), the file's fields and its one byte range
    /// (``TitleFileServer``) and the security headers. Anything else — a first segment, an unsatisfiable range, HEAD,
    /// a playlist, a key, a signed URL, a cookie, CORS, a peer, the admin, a miss in any cache, a file not on disk
    /// or refused — returns nil.
    func hotAnswer(_ request: HTTPRequest) -> HotAnswer? {
        guard request.method == .get, let path = request.path, path.hasPrefix("/titles/"),
            !path.utf8.contains(UInt8(ascii: "?")), request.headerFields[.origin] == nil,
            let authorization = request.headerFields[.authorization],
            let principal = authenticator.knownBearer(authorization), !principal.isPeer
        else { return nil }
        let (rawKey, remainder) = Self.titleParts(path)
        let key = String(rawKey)
        guard !key.isEmpty, !key.utf8.contains(UInt8(ascii: "%")), !remainder.hasPrefix("keys/"),
            let relative = TitlePath.relative(rawPath: remainder), !relative.isEmpty,
            Self.kind(of: relative) == .media, let title = titles.known(key)
        else { return nil }
        let directory = titlesRootPath + "/" + title.token
        guard case .file(let file, let stat) = TitlePath.served(relative, inRoot: directory), stat.size > 0 else {
            return nil
        }
        let size = stat.size, modified = stat.modifiedDate
        var fields = TitleFileServer.headers(relative, size: size, modified: modified, dynamic: false)
        let status: HTTPResponse.Status, bytes: ClosedRange<Int>
        switch TitleFileServer.range(request.headerFields, size: size, modified: modified, dynamic: false) {
        case .whole:
            (status, bytes) = (.ok, 0...(size - 1))
        case .partial(let range):
            (status, bytes) = (.partialContent, range)
            fields[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
        case .unsatisfiable:
            return nil
        }
        guard let meter = plays.admitCounted(principal, token: title.token, now: clock()) else { return nil }
        fields[.contentLength] = "\(bytes.count)"
        fields[FileSlice.header] =
            FileSlice(path: file, offset: bytes.lowerBound, length: bytes.count, size: size).fieldValue
        SecurityHeaders.apply(to: &fields)
        // What Hummingbird adds to the router's answers.
        fields[.date] = HTTPDate.format(Date())
        fields[.server] = Self.serverName
        meter.served("/" + relative, sent: bytes.count, size: size)
        return HotAnswer(head: HTTPResponse(status: status, headerFields: fields))
    }
}
