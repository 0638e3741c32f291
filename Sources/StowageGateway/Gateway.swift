import Foundation
import Hummingbird
import Logging
import StowagePlayback
import StowageProtocol

/// `stowage-gateway`'s HTTP side: credentials, playback sessions, the title files, `/resolve`, the library
/// page and its JSON API and events. It reaches the scheduler only through a ``GatewayBackend``.
public final class Gateway: Sendable {
    /// What the gateway is told at start.
    public struct Configuration: Sendable {
        /// `$STOWAGE_HOME/titles`: each title's offline copy is `<titlesRoot>/<token>/`.
        public var titlesRoot: URL
        /// The admin's secret (nil: no admin).
        public var adminSecret: String?
        /// `/resolve` of a title that cannot be played offline answers with its source URL.
        public var fallbackToSource: Bool
        /// Seconds of silence after which a device's next request of a title is a new play.
        public var sessionIdleSeconds: Double
        /// Mark the session cookie `Secure` (served over TLS).
        public var secureCookies: Bool

        public init(
            titlesRoot: URL, adminSecret: String? = nil, fallbackToSource: Bool = false,
            sessionIdleSeconds: Double = 30, secureCookies: Bool = false
        ) {
            self.titlesRoot = titlesRoot
            self.adminSecret = adminSecret
            self.fallbackToSource = fallbackToSource
            self.sessionIdleSeconds = sessionIdleSeconds
            self.secureCookies = secureCookies
        }
    }

    /// The largest request body accepted (`/login`'s form): 4 KiB.
    public static let maxBodyBytes = 4096

    let configuration: Configuration
    let backend: any GatewayBackend
    let authenticator: Authenticator
    let plays: PlayState
    let titles: TitleCache
    let clock: @Sendable () -> Double
    let logger: Logger

    /// `clock`: monotonic seconds (sessions, caches).
    public init(
        configuration: Configuration, backend: any GatewayBackend, logger: Logger,
        clock: @escaping @Sendable () -> Double
    ) {
        self.configuration = configuration
        self.backend = backend
        self.logger = logger
        self.clock = clock
        authenticator = Authenticator(backend: backend, adminSecret: configuration.adminSecret, clock: clock)
        plays = PlayState(backend: backend, idleLimit: configuration.sessionIdleSeconds, logger: logger)
        titles = TitleCache(backend: backend, clock: clock)
    }

    /// Answers one request: CORS on every answer, errors as JSON.
    public func respond(to request: Request, context: some RequestContext) async -> Response {
        let origin = request.headers[.origin]
        if request.method == .options {
            var response = Response(status: .noContent)
            CORS.apply(to: &response, origin: origin, preflight: true)
            return response
        }
        var response: Response
        do {
            response = try await route(request, context: context)
        } catch let error as GatewayError {
            response = error.response
            if error.code == .unauthorized, request.uri.path == "/", request.method == .get,
                (request.headers[.accept] ?? "").contains("text/html")
            {
                response = Self.redirect("/login", status: .seeOther)
            }
        } catch {
            response = GatewayError(.internalServerError, .internal, "\(error)").response
        }
        CORS.apply(to: &response, origin: origin)
        return response
    }

    private func route(_ request: Request, context: some RequestContext) async throws -> Response {
        let path = request.uri.path
        if path == "/login" { return try await login(request) }
        if path == "/logout" {
            authenticator.logout(request)
            var response = Self.redirect("/login", status: .seeOther)
            response.headers[.setCookie] = "\(Authenticator.cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax"
            return response
        }
        let identity = try await authenticator.identify(request)
        if path.hasPrefix("/titles/") { return try await title(request, identity: identity, context: context) }
        if path.hasPrefix("/api/titles/") { return try await manage(request, identity: identity) }
        guard request.method == .get || request.method == .head else {
            throw GatewayError(.methodNotAllowed, .refused, "\(request.method) is not allowed here")
        }
        switch path {
        case "/":
            var page = try await libraryPage(identity)
            if identity.signedQuery != nil, let id = authenticator.session(forSigned: request) {
                let secure = configuration.secureCookies ? "; Secure" : ""
                page.headers[.setCookie] = "\(Authenticator.cookieName)=\(id); Path=/; HttpOnly; SameSite=Lax\(secure)"
            }
            return page
        case "/api/titles": return try await titleList()
        case "/events": return events()
        case "/resolve": return try await resolve(request, identity: identity)
        default: throw GatewayError.notFound("no such page: \(path)")
        }
    }

    // MARK: login

    private func login(_ request: Request) async throws -> Response {
        if request.method == .get || request.method == .head { return Self.html(LoginPage.render(message: nil)) }
        guard request.method == .post else { throw GatewayError(.methodNotAllowed, .refused, "GET or POST") }
        var body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maxBodyBytes)
        } catch {
            throw GatewayError(.contentTooLarge, .refused, "the form is larger than \(Self.maxBodyBytes) bytes")
        }
        let form = body.readString(length: body.readableBytes) ?? ""
        let secret = Self.formValue("secret", in: form) ?? ""
        do {
            let (id, principal) = try await authenticator.login(secret: secret)
            var response = Self.redirect("/", status: .seeOther)
            let secure = configuration.secureCookies ? "; Secure" : ""
            response.headers[.setCookie] = "\(Authenticator.cookieName)=\(id); Path=/; HttpOnly; SameSite=Lax\(secure)"
            logger.info("login", metadata: ["principal": "\(principal.name)"])
            return response
        } catch let error as GatewayError where error.code == .unauthorized {
            if (request.headers[.accept] ?? "").contains("application/json") { throw error }
            var response = Self.html(LoginPage.render(message: "That secret was not accepted."))
            response.status = .unauthorized
            return response
        }
    }

    /// A field of an `application/x-www-form-urlencoded` body.
    static func formValue(_ name: String, in form: String) -> String? {
        for pair in form.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.first == name else { continue }
            let raw = kv.count == 2 ? kv[1] : ""
            return raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? raw
        }
        return nil
    }

    // MARK: resolve

    private func resolve(_ request: Request, identity: Identity) async throws -> Response {
        let query = request.uri.queryParameters
        let id = query["id"].map(String.init), url = query["url"].map(String.init)
        guard id != nil || url != nil else { throw GatewayError(.badRequest, .refused, "give ?id=ID or ?url=URL") }
        let status: TitleStatus
        do {
            status = try await backend.lookup(id: id, url: url)
        } catch let error as GatewayError where error.code == .notFound && configuration.fallbackToSource {
            // Not on the box at all: the source, as a URL provider would answer (http(s) only).
            guard let url, let scheme = URL(string: url)?.scheme?.lowercased(), ["http", "https"].contains(scheme)
            else { throw error }
            if (request.headers[.accept] ?? "").contains("application/json") { return Self.json(["url": url]) }
            return Self.redirect(url, status: .found)
        }
        let target: String
        if status.playableOffline {
            let key = status.id ?? status.token
            let entry = entryPlaylist(status)
            target = baseURL(request) + "/titles/\(Self.pathEscaped(key))/\(entry)"
        } else if configuration.fallbackToSource {
            target = status.url
        } else {
            throw GatewayError.notFound("\(status.name ?? status.token) cannot be played offline now")
        }
        if (request.headers[.accept] ?? "").contains("application/json") {
            return Self.json(["url": target])
        }
        return Self.redirect(target, status: .found)
    }

    /// `scheme://host` of the request, from its `Host` header.
    func baseURL(_ request: Request) -> String {
        let host = request.head.authority ?? "localhost"
        return (configuration.secureCookies ? "https://" : "http://") + host
    }

    // MARK: responses

    static func redirect(_ location: String, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers)
    }

    static func html(_ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func json(_ value: some Encodable) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func pathEscaped(_ part: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return part.addingPercentEncoding(withAllowedCharacters: allowed) ?? part
    }
}

/// The Hummingbird responder of a ``Gateway``.
public struct GatewayResponder: HTTPResponder {
    public typealias Context = BasicRequestContext
    let gateway: Gateway

    /// Answers one request (never throws: every failure is a JSON error).
    public func respond(to request: Request, context: Context) async throws -> Response {
        await gateway.respond(to: request, context: context)
    }
}
