import Foundation
import Hummingbird
import Logging
import StowageProtocol
import Synchronization

/// `stowctl play`'s server: one title at the root of 127.0.0.1, content keys at `/keys/N` (and W3C Clear Key
/// licenses at `POST /clearkey`) through a key provider that asks the scheduler, media seconds metered, and every
/// file refused once the license no longer allows playing.
public final class PlaybackServer: Sendable {
    /// Answers a content key request: the key bytes, or why it is refused (403).
    public typealias KeyProvider = @Sendable (Int) async -> Result<[UInt8], Refusal>

    /// Why a key or file is refused.
    public struct Refusal: Error, Sendable {
        public let reason: String
        public init(_ reason: String) { self.reason = reason }
    }

    /// The title's files.
    public let files: TitleFileServer
    /// The media served, for the play-time reports.
    public let meter: PlayMeter
    let keys: KeyProvider
    /// Key ID (32 lowercase hex digits) -> key index, for the Clear Key license endpoint.
    let clearKeyIDs: [String: Int]
    private let refusal = Mutex<String?>(nil)

    /// Serves `files`, metering into `meter`, keys from `keys`; `clearKeyIDs` maps the title's Clear Key key IDs
    /// (hex) to key indexes for `POST /clearkey`.
    public init(
        files: TitleFileServer, meter: PlayMeter, keys: @escaping KeyProvider, clearKeyIDs: [String: Int] = [:]
    ) {
        self.files = files
        self.meter = meter
        self.keys = keys
        self.clearKeyIDs = clearKeyIDs
    }

    /// From now on, answer every file request with 403 and this reason (the license no longer allows playing).
    public func refuse(_ reason: String) { refusal.withLock { $0 = reason } }
    var refused: String? { refusal.withLock { $0 } }

    /// The application serving on `host:port` (0: any free port); `onRunning` gets the bound port.
    public func application(
        host: String, port: Int, logger: Logger, onRunning: @escaping @Sendable (Int) async -> Void
    ) -> Application<PlaybackResponder> {
        Application(
            responder: PlaybackResponder(server: self),
            server: .http1(configuration: .init(idleTimeout: .seconds(120))),
            configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    /// Answers one request.
    func respond(to request: Request, context: some RequestContext) async -> Response {
        if request.method == .post, request.uri.path == "/clearkey" {
            let body = try? await request.body.collect(upTo: 64 * 1024)
            return await ClearKeyLicense.answer(body, keyIDs: clearKeyIDs, key: keys)
        }
        guard request.method == .get || request.method == .head else {
            return Self.text(.methodNotAllowed, "only GET and HEAD")
        }
        let path = request.uri.path
        if path.hasPrefix("/keys/") { return await key(path, head: request.method == .head) }
        if let refused { return Self.text(.forbidden, refused) }
        guard let relative = TitlePath.relative(rawPath: path), !relative.isEmpty else {
            return Self.text(.notFound, "not found")
        }
        switch await files.serve(relative, request: request, context: context) {
        case .response(let response, let served):
            if let served { meter.served("/" + served.relative, sent: served.sent, size: served.size) }
            return response
        case .failure(let status, _, let message):
            return Self.text(status, message)
        }
    }

    private func key(_ path: String, head: Bool) async -> Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        guard let index = Int(path.dropFirst("/keys/".count)), index >= 0 else {
            return Self.text(.notFound, "no such key", headers: headers)
        }
        switch await keys(index) {
        case .success(let key):
            headers[.contentType] = "application/octet-stream"
            headers[.contentLength] = "\(key.count)"
            let body = head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: key))
            return Response(status: .ok, headers: headers, body: body)
        case .failure(let refusal):
            return Self.text(.forbidden, refusal.reason, headers: headers)
        }
    }

    static func text(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = HTTPFields()) -> Response {
        var headers = headers
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(
            status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}

/// The Hummingbird responder of a ``PlaybackServer``.
public struct PlaybackResponder: HTTPResponder {
    public typealias Context = BasicRequestContext
    let server: PlaybackServer

    /// Answers one request (never throws: every failure is a response).
    public func respond(to request: Request, context: Context) async throws -> Response {
        await server.respond(to: request, context: context)
    }
}
