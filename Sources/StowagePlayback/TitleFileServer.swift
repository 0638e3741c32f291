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

    /// The title directory.
    public let root: URL
    /// Serves what is not on disk yet (a title still downloading), when set.
    public let streaming: StreamingSource?
    private let fileIO: FileIO

    /// Serves `root`, and what it lacks from `streaming`.
    public init(root: URL, streaming: StreamingSource? = nil) {
        self.root = root
        self.streaming = streaming
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
        guard let url = TitlePath.resolve(relative, in: root) else {
            return .failure(.notFound, .notFound, "not found")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            let size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
            let modified = (attributes?[.modificationDate] as? Date) ?? Date(timeIntervalSince1970: 0)
            if ContentTypes.isPlaylist(relative) {
                guard let data = try? Data(contentsOf: url) else { return .failure(.notFound, .notFound, "not found") }
                return serveData(relative, data: data, modified: modified, request: request, rewriter: rewriter)
            }
            return await serveFile(relative, path: url.path, size: size, modified: modified, request: request, context)
        }
        guard let streaming, !isDirectory.boolValue else { return .failure(.notFound, .notFound, "not found") }
        switch await streaming.provide(relative) {
        case nil: return .failure(.notFound, .notFound, "not found")
        case .failed(let reason): return .failure(.badGateway, .network, reason)
        case .data(let data):
            return serveData(
                relative, data: data, modified: Date(timeIntervalSince1970: 0), request: request, rewriter: rewriter)
        }
    }

    /// A file on disk, streamed in chunks (never loaded whole).
    private func serveFile(
        _ relative: String, path: String, size: Int, modified: Date, request: Request, _ context: some RequestContext
    ) async -> Outcome {
        var headers = Self.headers(relative, size: size, modified: modified, dynamic: false)
        let head = request.method == .head
        do {
            switch Self.range(request, size: size, modified: modified, dynamic: false) {
            case .whole:
                headers[.contentLength] = "\(size)"
                let body = head || size == 0 ? ResponseBody() : try await fileIO.loadFile(path: path, context: context)
                return .response(
                    Response(status: .ok, headers: headers, body: body),
                    served: head ? nil : Served(relative: relative, sent: size, size: size))
            case .partial(let range):
                headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
                headers[.contentLength] = "\(range.count)"
                let body = head ? ResponseBody() : try await fileIO.loadFile(path: path, range: range, context: context)
                return .response(
                    Response(status: .partialContent, headers: headers, body: body),
                    served: head ? nil : Served(relative: relative, sent: range.count, size: size))
            case .unsatisfiable:
                return .response(Self.unsatisfiable(headers, size: size), served: nil)
            }
        } catch {
            return .failure(.notFound, .notFound, "not found")
        }
    }

    /// A body in memory: a playlist (rewritten when it must be), or a file from the streaming source.
    private func serveData(
        _ relative: String, data: Data, modified: Date, request: Request, rewriter: PlaylistRewriter
    ) -> Outcome {
        var data = data
        let dynamic = ContentTypes.isPlaylist(relative) && !rewriter.isIdentity
        if dynamic {
            let text = String(decoding: data, as: UTF8.self)
            let mpd = relative.lowercased().hasSuffix(".mpd")
            data = Data((mpd ? rewriter.rewriteMPD(text, at: relative) : rewriter.rewrite(text, at: relative)).utf8)
        }
        var headers = Self.headers(relative, size: data.count, modified: modified, dynamic: dynamic)
        let head = request.method == .head
        let status: HTTPResponse.Status
        var slice = data[...]
        switch Self.range(request, size: data.count, modified: modified, dynamic: dynamic) {
        case .whole:
            status = .ok
        case .partial(let range):
            status = .partialContent
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(data.count)"
            slice = data[(data.startIndex + range.lowerBound)...(data.startIndex + range.upperBound)]
        case .unsatisfiable:
            return .response(Self.unsatisfiable(headers, size: data.count), served: nil)
        }
        headers[.contentLength] = "\(slice.count)"
        let body = head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: slice))
        return .response(
            Response(status: status, headers: headers, body: body),
            served: head ? nil : Served(relative: relative, sent: slice.count, size: data.count))
    }

    private static func unsatisfiable(_ headers: HTTPFields, size: Int) -> Response {
        var headers = headers
        headers[.contentRange] = "bytes */\(size)"
        headers[.contentLength] = "0"
        return Response(status: .rangeNotSatisfiable, headers: headers, body: ResponseBody())
    }

    /// The range to answer: `If-Range` applies the range only while its validator still matches; playlists
    /// rewritten per request are always whole.
    private static func range(_ request: Request, size: Int, modified: Date, dynamic: Bool) -> RangeRequest {
        guard !dynamic, let header = request.headers[.range] else { return .whole }
        if let ifRange = request.headers[.ifRange], ifRange != etag(size: size, modified: modified),
            ifRange != HTTPDate.format(modified)
        {
            return .whole
        }
        return RangeRequest.parse(header, size: size)
    }

    private static func headers(_ relative: String, size: Int, modified: Date, dynamic: Bool) -> HTTPFields {
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
