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
    /// title and authorised session as the one before. Those are answered here, by the same rules: the route the
    /// router would take (``TitleRoute``: a file, of a kind that counts as media), what each middleware of the
    /// router would do (``HotPathStage``: no CORS request, a bearer credential the cache holds good, the security
    /// headers), a title the cache holds (``TitleCache/known(_:)``), what may be served
    /// (``TitlePath/served(_:inRoot:)``: a regular file with one link, no symbolic link on the way), a session
    /// whose play was counted and authorised and whose title is still playable
    /// (``PlayState/admitCounted(_:token:now:)``), and the head ``FileHead`` builds for the router's answer too.
    /// Anything else — a first segment, an unsatisfiable range, HEAD, a playlist, a key, a signed URL, a cookie,
    /// CORS, a peer, the admin, a miss in any cache, a file not on disk or refused — returns nil.
    func hotAnswer(_ request: HTTPRequest) -> HotAnswer? {
        guard request.method == .get, let path = request.path, path.hasPrefix("/titles/") else { return nil }
        var offRouter = OffRouterRequest(head: request)
        for stage in hotPathStages where !stage.admitsOffRouter(&offRouter) { return nil }
        let query = path.utf8.firstIndex(of: UInt8(ascii: "?")) ?? path.endIndex
        let route = TitleRoute(method: request.method, path: String(path[..<query]))
        guard let principal = offRouter.principal, !principal.isPeer, case .file(let relative) = route.endpoint,
            Self.kind(of: relative) == .media, let key = route.key, let title = titles.known(key)
        else { return nil }
        let directory = titlesRootPath + "/" + title.token
        guard case .file(let file, let stat) = TitlePath.served(relative, inRoot: directory), stat.size > 0 else {
            return nil
        }
        var head = FileHead(
            relative, size: stat.size, modified: stat.modifiedDate, dynamic: false, request: request.headerFields,
            sendfile: file)
        guard head.status != .rangeNotSatisfiable,
            let meter = plays.admitCounted(principal, token: title.token, now: clock())
        else { return nil }
        for stage in hotPathStages { stage.finishOffRouter(&head.fields) }
        // What Hummingbird adds to the router's answers.
        head.fields[.date] = HTTPDate.format(Date())
        head.fields[.server] = Self.serverName
        meter.served("/" + relative, sent: head.bytes.count, size: stat.size)
        return HotAnswer(head: HTTPResponse(status: head.status, headerFields: head.fields))
    }
}
