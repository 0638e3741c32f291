import HTTPTypes
import Hummingbird

/// What a middleware of the router does for a request that the hot path (``Gateway/hotAnswer(_:)``) answers in
/// the router's place.
///
/// The hot path skips the router, and so its middleware; each middleware therefore says here what it would
/// have done: whether the request may be answered without it (a CORS request, a cookie, a state-changing
/// method may not), what it found that the answer needs (the credential's principal), and what it adds to a
/// 200/206 answer (the security headers). The hot path asks every middleware of ``Gateway/middleware(_:)`` —
/// the one list the router installs — in the router's order; a test checks that the router holds no other.
protocol HotPathStage: Sendable {
    /// Whether `request` may be answered off the router as far as this middleware goes; what it finds that the
    /// answer needs goes into `request`.
    func admitsOffRouter(_ request: inout OffRouterRequest) -> Bool
    /// What the middleware does to the fields of a 200/206 answer it let through.
    func finishOffRouter(_ fields: inout HTTPFields)
}

/// A request head on the hot path, with what its middleware found.
struct OffRouterRequest {
    let head: HTTPRequest
    /// Who it acts for, once the credential middleware has found out (nil: not yet, or nobody).
    var principal: Principal?
}

/// A middleware of the gateway's router: Hummingbird's middleware, with its part on the hot path.
protocol GatewayMiddleware<Context>: RouterMiddleware, HotPathStage {}

extension Gateway {
    /// The router's middleware, outermost first: security headers on every answer, CORS for the listed origins,
    /// errors as JSON, credentials (into the context), then CSRF for state-changing cookie requests — so each
    /// route only does its own work. The router installs exactly these, and the hot path follows them.
    static func middleware<Context: GatewayContext>(
        _ context: Context.Type, configuration: Configuration, authenticator: Authenticator
    ) -> [any GatewayMiddleware<Context>] {
        [
            SecurityHeadersMiddleware<Context>(),
            ListedOriginsCORS<Context>(origins: configuration.corsOrigins),
            GatewayErrorMiddleware<Context>(),
            CredentialMiddleware<Context>(authenticator: authenticator),
            CSRFMiddleware<Context>(
                publicOrigin: configuration.publicURL.flatMap(WebOrigin.of),
                scheme: configuration.secureCookies ? "https" : "http"),
        ]
    }
}
