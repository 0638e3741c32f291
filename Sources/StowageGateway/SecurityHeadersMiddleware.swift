import HTTPTypes
import Hummingbird

/// The browser policy on every answer: nothing loaded from outside the box and no inline script or style
/// (the library page's script and style are served at `/app.js` and `/app.css`), never framed, no MIME
/// sniffing, no referrer sent to other sites.
struct SecurityHeadersMiddleware<Context: GatewayContext>: GatewayMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response = try await next(request, context)
        SecurityHeaders.apply(to: &response.headers)
        return response
    }

    /// Every answer carries the fields, the hot path's too.
    func admitsOffRouter(_ request: inout OffRouterRequest) -> Bool { true }
    func finishOffRouter(_ fields: inout HTTPFields) { SecurityHeaders.apply(to: &fields) }
}

/// The fields ``SecurityHeadersMiddleware`` sets, made once (a generic type holds no stored statics, and every
/// answer carries them).
enum SecurityHeaders {
    static let contentSecurityPolicy: String = {
        [
            "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:",
            "media-src 'self' blob:", "connect-src 'self'", "object-src 'none'", "base-uri 'none'",
            "form-action 'self'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }()

    static let fields: HTTPFields = {
        var headers = HTTPFields()
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        return headers
    }()

    /// Sets the fields on `headers`, replacing any a route set.
    static func apply(to headers: inout HTTPFields) {
        for field in fields { headers[field.name] = field.value }
    }
}
