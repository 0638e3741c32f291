import Foundation
import Hummingbird
import StowageProtocol

/// Serves the files of one title directory: GET and HEAD, one byte range (206 / 416, `Accept-Ranges`,
/// `Content-Range`, `If-Range`), content types by extension, path safety, large files streamed from disk,
/// playlists rewritten for where they are served, and — for a title still downloading — what is not on disk
/// from a ``StreamingSource``.
public struct TitleFileServer: Sendable {
    /// What was served, for play metering: `sent` bytes of a file of `size` bytes at `relative`.
    public struct Served: Sendable, Equatable {
        public var relative: String
        public var sent: Int
        public var size: Int
    }

    /// The answer: a response (and what it served, for a GET of a file), or a failure for the caller to render.
    public enum Outcome: Sendable {
        case response(Response, served: Served?)
        case failure(HTTPResponse.Status, ErrorCode, String)
    }

    /// The title directory's path.
    public let rootPath: String
    /// The title directory.
    public var root: URL { URL(fileURLWithPath: rootPath) }
    /// Serves what is not on disk yet (a title still downloading), when set.
    public let streaming: StreamingSource?
    /// Files on disk go out as a ``FileSlice`` for the connection to `sendfile` (only where a channel handler
    /// does that: the gateway over plain HTTP); otherwise they are read into buffers.
    public let zeroCopy: Bool
    /// Playlists as served, kept across requests (nil: read and rewritten every time).
    public let playlists: PlaylistCache?
    private let fileIO: FileIO

    /// Serves `root`, and what it lacks from `streaming`; with `zeroCopy`, files as ``FileSlice``s; playlists
    /// kept in `playlists`.
    public init(
        root: URL, streaming: StreamingSource? = nil, zeroCopy: Bool = false, playlists: PlaylistCache? = nil
    ) {
        self.init(rootPath: root.path, streaming: streaming, zeroCopy: zeroCopy, playlists: playlists)
    }

    /// ``init(root:streaming:zeroCopy:playlists:)`` with the directory as a path (no `URL` per request).
    public init(
        rootPath: String, streaming: StreamingSource? = nil, zeroCopy: Bool = false, playlists: PlaylistCache? = nil
    ) {
        self.rootPath = rootPath
        self.streaming = streaming
        self.zeroCopy = zeroCopy
        self.playlists = playlists
        fileIO = FileIO()
    }

    /// Answers `request` for the file at `relative` (already checked by ``TitlePath/relative(rawPath:)``).
    public func serve(
        _ relative: String, request: Request, context: some RequestContext,
        rewriter: PlaylistRewriter = PlaylistRewriter()
    ) async -> Outcome {
        guard request.method == .get || request.method == .head else {
            return .failure(.methodNotAllowed, .refused, "only GET and HEAD")
        }
        switch TitlePath.served(relative, inRoot: rootPath) {
        case .refused:
            return .failure(.notFound, .notFound, "not found")
        case .file(let path, let stat):
            let size = stat.size, modified = stat.modifiedDate
            if ContentTypes.isPlaylist(relative) {
                let read = {
                    Self.rewritten(relative, data: try Data(contentsOf: URL(fileURLWithPath: path)), rewriter: rewriter)
                }
                guard
                    let data = try? playlists?.playlist(path: path, stat: stat, rewriter: rewriter, make: read)
                        ?? read()
                else { return .failure(.notFound, .notFound, "not found") }
                return serveData(
                    relative, data: data, modified: modified, request: request, rewriter: rewriter, rewritten: true)
            }
            return await serveFile(relative, path: path, size: size, modified: modified, request: request, context)
        case .missing:
            break
        }
        guard let streaming else { return .failure(.notFound, .notFound, "not found") }
        switch await streaming.provide(relative) {
        case nil: return .failure(.notFound, .notFound, "not found")
        case .failed(let reason): return .failure(.badGateway, .network, reason)
        case .data(let data):
            return serveData(
                relative, data: data, modified: Date(timeIntervalSince1970: 0), request: request, rewriter: rewriter)
        }
    }

    /// A file on disk, streamed in chunks (never loaded whole), or a ``FileSlice`` when `zeroCopy`.
    private func serveFile(
        _ relative: String, path: String, size: Int, modified: Date, request: Request, _ context: some RequestContext
    ) async -> Outcome {
        let isHead = request.method == .head
        let head = FileHead(
            relative, size: size, modified: modified, dynamic: false, request: request.headers,
            sendfile: zeroCopy && !isHead ? path : nil)
        guard head.status != .rangeNotSatisfiable else {
            return .response(Response(status: head.status, headers: head.fields, body: ResponseBody()), served: nil)
        }
        do {
            // Zero-copy: the connection sends the slice the head carries.
            let sendsNothing = isHead || head.bytes.isEmpty || zeroCopy
            let body = sendsNothing ? ResponseBody() : try await fileBody(path, head, size, context)
            return .response(
                Response(status: head.status, headers: head.fields, body: body),
                served: isHead ? nil : Served(relative: relative, sent: head.bytes.count, size: size))
        } catch {
            return .failure(.notFound, .notFound, "not found")
        }
    }

    /// The bytes of `head`'s range of a file, read in chunks.
    private func fileBody(
        _ path: String, _ head: FileHead, _ size: Int, _ context: some RequestContext
    ) async throws -> ResponseBody {
        if head.bytes.count == size { return try await fileIO.loadFile(path: path, context: context) }
        return try await fileIO.loadFile(
            path: path, range: head.bytes.lowerBound...(head.bytes.upperBound - 1), context: context)
    }

    /// A body in memory: a playlist (rewritten when it must be), or a file from the streaming source.
    private func serveData(
        _ relative: String, data: Data, modified: Date, request: Request, rewriter: PlaylistRewriter,
        rewritten: Bool = false
    ) -> Outcome {
        let dynamic = ContentTypes.isPlaylist(relative) && !rewriter.isIdentity
        let data = rewritten ? data : Self.rewritten(relative, data: data, rewriter: rewriter)
        let head = FileHead(relative, size: data.count, modified: modified, dynamic: dynamic, request: request.headers)
        let isHead = request.method == .head
        guard head.status != .rangeNotSatisfiable else {
            return .response(Response(status: head.status, headers: head.fields, body: ResponseBody()), served: nil)
        }
        let slice = data[(data.startIndex + head.bytes.lowerBound)..<(data.startIndex + head.bytes.upperBound)]
        let body = isHead ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: slice))
        return .response(
            Response(status: head.status, headers: head.fields, body: body),
            served: isHead ? nil : Served(relative: relative, sent: slice.count, size: data.count))
    }

    /// A playlist's bytes as served under `rewriter` (other files, and an identity rewriter: unchanged).
    private static func rewritten(_ relative: String, data: Data, rewriter: PlaylistRewriter) -> Data {
        guard ContentTypes.isPlaylist(relative), !rewriter.isIdentity else { return data }
        let text = String(decoding: data, as: UTF8.self)
        let mpd = relative.lowercased().hasSuffix(".mpd")
        return Data((mpd ? rewriter.rewriteMPD(text, at: relative) : rewriter.rewrite(text, at: relative)).utf8)
    }

    /// The range to answer, from a request's fields: `If-Range` applies the range only while its validator still
    /// matches; playlists rewritten per request are always whole.
    public static func range(_ fields: HTTPFields, size: Int, modified: Date, dynamic: Bool) -> RangeRequest {
        guard !dynamic, let header = fields[.range] else { return .whole }
        if let ifRange = fields[.ifRange], ifRange != etag(size: size, modified: modified),
            ifRange != HTTPDate.format(modified)
        {
            return .whole
        }
        return RangeRequest.parse(header, size: size)
    }

    /// The fields of a file's answer: type, ranges accepted, validators (and `no-store` for a `dynamic` one).
    public static func headers(_ relative: String, size: Int, modified: Date, dynamic: Bool) -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = ContentTypes.forPath(relative)
        if dynamic { headers[.cacheControl] = "no-store" }
        headers[.acceptRanges] = "bytes"
        headers[.eTag] = etag(size: size, modified: modified)
        headers[.lastModified] = HTTPDate.format(modified)
        return headers
    }

    private static func etag(size: Int, modified: Date) -> String {
        "\"\(size)-\(Int(modified.timeIntervalSince1970))\""
    }
}
