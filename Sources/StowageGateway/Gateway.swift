import Foundation
import Hummingbird
import Logging
import StowagePlayback
import StowageProtocol
import Synchronization

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
        /// The origins (`scheme://host[:port]`) whose pages may call the gateway with credentials
        /// (`--cors-origin`); no other origin gets a CORS header.
        public var corsOrigins: [String]
        /// Where devices reach the gateway (`--public-url`), for absolute links; nil: links are relative paths
        /// (the request's `Host` is never echoed).
        public var publicURL: String?
        /// How failed credentials are throttled per client address.
        public var throttle: Throttle.Policy

        public init(
            titlesRoot: URL, adminSecret: String? = nil, fallbackToSource: Bool = false,
            sessionIdleSeconds: Double = 30, secureCookies: Bool = false, corsOrigins: [String] = [],
            publicURL: String? = nil, throttle: Throttle.Policy = .init()
        ) {
            self.titlesRoot = titlesRoot
            self.adminSecret = adminSecret
            self.fallbackToSource = fallbackToSource
            self.sessionIdleSeconds = sessionIdleSeconds
            self.secureCookies = secureCookies
            self.corsOrigins = corsOrigins
            self.publicURL = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
            self.throttle = throttle
        }
    }

    /// The largest request body accepted (`/login`'s form): 4 KiB.
    public static let maxBodyBytes = 4096

    let configuration: Configuration
    /// `configuration.titlesRoot` as a path: a title's folder is `<titlesRootPath>/<token>`.
    let titlesRootPath: String
    let backend: any GatewayBackend
    let authenticator: Authenticator
    let plays: PlayState
    let titles: TitleCache
    /// The `/events` streams each credential holds.
    let eventStreams = EventStreamPlaces()
    /// Playlists as served, per file version and rewriter (title prefix, signed query).
    let playlists = PlaylistCache()
    /// Looks at a source for the console's add-title form (nil: the console cannot, and says so).
    let previewer: (any TitlePreviewer)?
    /// What the library tells of each completed title (duration, languages…), read from its copy.
    let titleFacts = TitleFactsCache()
    /// Posters taken from a frame of titles that came without one.
    let posterFrames: PosterFrames
    let clock: @Sendable () -> Double
    let wallClock: @Sendable () -> Double
    let logger: Logger
    /// The router's middleware as the hot path follows it (``HotPathStage``), in the router's order.
    let hotPathStages: [any HotPathStage]
    /// How many requests the router answered and the hot path answered.
    let traffic = ServingCounts()
    /// Where devices reach the gateway, as it published it once listening (``published(reachableURL:)``): the
    /// base of the pairing links the console makes.
    let reachableURL = Mutex<String?>(nil)

    /// `clock`: monotonic seconds (sessions, caches, throttle); `wallClock`: unix seconds (signed URLs' `exp`).
    /// `sourceFetcher` makes the fetcher of each title played while still downloading (the process passes
    /// `StowageFetch`'s HTTP client, which this library does not link); nil: such a title serves only what is
    /// on disk. `previewer` looks at a source for the console (the process passes `StowageFetch`'s, as for
    /// `sourceFetcher`).
    public init(
        configuration: Configuration, backend: any GatewayBackend, logger: Logger,
        clock: @escaping @Sendable () -> Double,
        wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
        sourceFetcher: (@Sendable () -> any PlaySourceFetcher)? = nil, previewer: (any TitlePreviewer)? = nil
    ) {
        self.configuration = configuration
        self.previewer = previewer
        let root = configuration.titlesRoot.path
        titlesRootPath = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        self.backend = backend
        self.logger = logger
        self.clock = clock
        self.wallClock = wallClock
        // One outage for the credentials and the titles: what the gateway holds is served while no scheduler answers.
        let outage = SchedulerOutage()
        authenticator = Authenticator(
            backend: backend, adminSecret: configuration.adminSecret, throttle: configuration.throttle, clock: clock,
            wallClock: wallClock, outage: outage)
        plays = PlayState(
            backend: backend, idleLimit: configuration.sessionIdleSeconds, sourceFetcher: sourceFetcher, logger: logger)
        titles = TitleCache(backend: backend, clock: clock, outage: outage)
        posterFrames = PosterFrames(logger: logger)
        hotPathStages = Self.middleware(
            GatewayRequestContext.self, configuration: configuration, authenticator: authenticator)
    }

    // MARK: login

    private struct LoginForm: Decodable {
        let secret: String?
    }

    /// `GET /login`: the form.
    func loginPage() -> Response { Self.html(LoginPage.render(message: nil)) }

    /// `POST /login`: checks the secret (throttled per address) and sets the session cookie.
    func login(_ request: Request, context: some GatewayContext) async throws -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: Self.maxBodyBytes)
        } catch {
            throw GatewayError(.contentTooLarge, .refused, "the form is larger than \(Self.maxBodyBytes) bytes")
        }
        let form = try? URLEncodedFormDecoder().decode(LoginForm.self, from: String(buffer: body))
        do {
            let login = try await authenticator.login(secret: form?.secret ?? "", from: context.clientAddress)
            var response = Self.redirect("/", status: .seeOther)
            response.headers[.setCookie] = sessionCookie(login.id)
            logger.info("login", metadata: ["principal": "\(login.principal.name)"])
            return response
        } catch let error as GatewayError where error.status == .unauthorized || error.status == .tooManyRequests {
            if (request.headers[.accept] ?? "").contains("application/json") { throw error }
            let message = error.status == .unauthorized ? "That secret was not accepted." : error.message
            var response = Self.html(LoginPage.render(message: message))
            response.status = error.status
            for field in error.headers { response.headers[field.name] = field.value }
            return response
        }
    }

    /// `POST /logout` (with the session's CSRF token): ends the session, clears the cookie.
    func logout(_ request: Request) -> Response {
        authenticator.logout(request)
        var response = Self.redirect("/login", status: .seeOther)
        response.headers[.setCookie] = "\(Authenticator.cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax"
        return response
    }

    /// `GET /`: the library page; a signed URL of the page opens a session (a cookie) for the page's own requests.
    func library(_ request: Request, identity: Identity) async throws -> Response {
        let (token, setCookie) = try pageSession(request, identity: identity)
        var page = try await libraryPage(identity, csrfToken: token)
        if let setCookie { page.headers[.setCookie] = setCookie }
        return page
    }

    /// A page opened through a signed URL (`/`, `/play/<token>`) opens a session (a cookie) for the page's own
    /// requests (its script, its video, its subtitles): the session's CSRF token, and the `Set-Cookie` value when
    /// one was opened.
    func pageSession(_ request: Request, identity: Identity) throws -> (csrfToken: String?, setCookie: String?) {
        let cookie = Authenticator.cookie(Authenticator.cookieName, in: request.headers[values: .cookie])
        guard identity.signedQuery != nil, cookie == nil,
            let signed = try SignedQuery.parse(request.uri.query, now: wallClock())
        else { return (identity.csrfToken, nil) }
        let login = authenticator.login(signed: signed, path: request.uri.path)
        return (login.csrfToken, sessionCookie(login.id))
    }

    /// The `Set-Cookie` value of a login session.
    func sessionCookie(_ id: String) -> String {
        let secure = configuration.secureCookies ? "; Secure" : ""
        return "\(Authenticator.cookieName)=\(id); Path=/; HttpOnly; SameSite=Lax\(secure)"
    }

    // MARK: resolve

    /// `/resolve?id=ID` or `?url=SOURCE`: the local copy when it is playable offline; else, with
    /// `--fallback-to-source`, the title's own recorded source URL — never a URL only the request names, so the
    /// gateway is no open redirector; else 404.
    func resolve(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        guard query.getAll("id").count + query.getAll("url").count == 1 else {
            throw GatewayError(.badRequest, .refused, "give one ?id=ID or ?url=URL")
        }
        let id = query["id"].map(String.init), url = query["url"].map(String.init)
        let status = try await backend.lookup(id: id, url: url)
        let target: String
        if status.playableOffline {
            let key = status.id ?? status.token
            target = link("/titles/\(Self.pathEscaped(key))/\(entryPlaylist(status))")
        } else if configuration.fallbackToSource, let scheme = URL(string: status.url)?.scheme?.lowercased(),
            ["http", "https"].contains(scheme)
        {
            target = status.url
        } else {
            throw GatewayError.notFound("\(status.name ?? status.token) cannot be played offline now")
        }
        if (request.headers[.accept] ?? "").contains("application/json") {
            return Self.json(["url": target])
        }
        return Self.redirect(target, status: .found)
    }

    /// Once listening: where devices reach it (its `--public-url`, else its address), as `run/gateway.url` says.
    public func published(reachableURL url: String) {
        reachableURL.withLock { $0 = url.hasSuffix("/") ? String(url.dropLast()) : url }
    }

    /// A gateway path as a link: absolute under `--public-url`, else the path itself (never built from `Host`).
    func link(_ path: String) -> String {
        (configuration.publicURL ?? "") + path
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
