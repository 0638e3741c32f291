import HTTPTypes
import Hummingbird

/// Refuses cross-site request forgery: a state-changing request (any method but GET, HEAD and OPTIONS) that
/// was authorised by the login cookie — which a browser sends whichever page makes the request — must carry
/// the session's token (header `X-CSRF-Token`, or a `csrf` field of a form) and come from the gateway's own
/// origin (`Origin`, else `Referer`; neither is refused). Bearer and signed-URL requests carry their credential
/// themselves and need neither. A login form posted from another origin is refused too.
struct CSRFMiddleware<Context: GatewayContext>: GatewayMiddleware {
    /// The header the library page's script sends the token in.
    static var headerName: HTTPField.Name { HTTPField.Name("X-CSRF-Token")! }

    /// The form field a plain HTML form sends it in.
    static var fieldName: String { "csrf" }

    /// `--public-url`'s origin, accepted besides the request's own.
    let publicOrigin: String?
    /// The scheme the gateway is reached with (`https` with TLS).
    let scheme: String

    private struct Form: Decodable {
        let csrf: String?
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard ![.get, .head, .options].contains(request.method) else { return try await next(request, context) }
        if request.uri.path == "/login", context.identity == nil {
            if let origin = request.headers[.origin], !allowed(origin, request) {
                throw GatewayError.forbidden("a login form from \(origin.prefix(100)) is not this gateway's")
            }
            return try await next(request, context)
        }
        guard let expected = context.identity?.csrfToken else { return try await next(request, context) }
        if Self.isClearKeyLicense(request.uri.path) {
            // A browser's EME player asks for Clear Key licenses itself and sends no token; the request changes
            // nothing but counting a play, and the cookie (SameSite=Lax) is not sent with another site's POSTs.
            if let origin = request.headers[.origin], !allowed(origin, request) {
                throw GatewayError.forbidden("a license request from \(origin.prefix(100)) is not this gateway's")
            }
            return try await next(request, context)
        }
        guard let origin = request.headers[.origin] ?? request.headers[.referer].flatMap(WebOrigin.of) else {
            throw GatewayError.forbidden("a state-changing request needs an Origin or Referer header")
        }
        guard allowed(origin, request) else {
            throw GatewayError.forbidden("a request from \(origin.prefix(100)) may not change anything here")
        }
        var request = request
        var token = request.headers[Self.headerName]
        if token == nil, request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true {
            let body = try await request.collectBody(upTo: Gateway.maxBodyBytes)
            token = (try? URLEncodedFormDecoder().decode(Form.self, from: String(buffer: body)))?.csrf
        }
        guard let token, Authenticator.constantTimeEqual(Array(token.utf8), Array(expected.utf8)) else {
            throw GatewayError.forbidden(
                "the request lacks this session's CSRF token (\(Self.headerName.rawName) header, as the page sends)")
        }
        return try await next(request, context)
    }

    /// A state-changing request takes the router; GET, HEAD and OPTIONS pass this middleware untouched.
    func admitsOffRouter(_ request: inout OffRouterRequest) -> Bool {
        [.get, .head, .options].contains(request.head.method)
    }

    func finishOffRouter(_ fields: inout HTTPFields) {}

    /// Whether `origin` is the gateway's own: the request's `Host`, or `--public-url` (both sides normalised).
    func allowed(_ origin: String, _ request: Request) -> Bool {
        guard let origin = WebOrigin.of(origin) else { return false }
        if let publicOrigin, origin == publicOrigin { return true }
        guard let authority = request.head.authority, let own = WebOrigin.of("\(scheme)://\(authority)") else {
            return false
        }
        return origin == own
    }

    /// `POST /titles/<key>/clearkey`.
    static func isClearKeyLicense(_ path: String) -> Bool {
        path.hasPrefix("/titles/") && path.hasSuffix("/clearkey") && path.split(separator: "/").count == 3
    }
}
