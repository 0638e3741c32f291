import Hummingbird

/// CORS for browser players on other origins: the request's `Origin` is reflected with credentials allowed;
/// methods GET, HEAD, OPTIONS; headers Authorization and Range; the range headers exposed.
public enum CORS {
    public static let allowedMethods = "GET, HEAD, OPTIONS"
    public static let allowedHeaders = "Authorization, Range"
    public static let exposedHeaders = "Content-Length, Content-Range, Accept-Ranges"

    /// The headers to add to an answer to a request from `origin` (none without an `Origin`).
    public static func headers(origin: String?, preflight: Bool) -> HTTPFields {
        var headers = HTTPFields()
        guard let origin, !origin.isEmpty else { return headers }
        headers[.accessControlAllowOrigin] = origin
        headers[.accessControlAllowCredentials] = "true"
        headers[.vary] = "Origin"
        if preflight {
            headers[.accessControlAllowMethods] = allowedMethods
            headers[.accessControlAllowHeaders] = allowedHeaders
            headers[.accessControlMaxAge] = "600"
        } else {
            headers[.accessControlExposeHeaders] = exposedHeaders
        }
        return headers
    }

    /// Adds the CORS headers for `origin` to `response`.
    public static func apply(to response: inout Response, origin: String?, preflight: Bool = false) {
        for field in headers(origin: origin, preflight: preflight) { response.headers[field.name] = field.value }
    }
}
