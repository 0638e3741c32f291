import HTTPTypes
import Hummingbird

/// CORS for the browser players the operator trusts (`--cors-origin`): a request whose `Origin` is on the list
/// gets Hummingbird's `CORSMiddleware` answer, with credentials; any other origin (`null` included) gets no CORS
/// header at all, so a browser keeps the answer from that page. Methods GET, HEAD, OPTIONS; headers
/// Authorization and Range; the range headers exposed.
struct ListedOriginsCORS<Context: GatewayContext>: GatewayMiddleware {
    let origins: Set<String>
    static var exposedHeaders: String { "Content-Length, Content-Range, Accept-Ranges" }
    private let cors: CORSMiddleware<Context>

    init(origins: [String]) {
        self.origins = Set(origins)
        cors = CORSMiddleware(
            allowOrigin: .originBased, allowHeaders: [.authorization, .range],
            allowMethods: [.get, .head, .options], allowCredentials: true,
            exposedHeaders: [Self.exposedHeaders], maxAge: .seconds(600))
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // `.originBased` reflects the origin; it is only reached for an origin on the list.
        guard let origin = request.headers[.origin], origins.contains(origin) else {
            return try await next(request, context)
        }
        var response = try await cors.handle(request, context: context, next: next)
        // Hummingbird's middleware names the exposed headers only on preflights; players read them on answers.
        if request.method != .options { response.headers[.accessControlExposeHeaders] = Self.exposedHeaders }
        return response
    }

    /// A request with an `Origin` takes the router, which answers a listed one with the CORS fields.
    func admitsOffRouter(_ request: inout OffRouterRequest) -> Bool { request.head.headerFields[.origin] == nil }
    func finishOffRouter(_ fields: inout HTTPFields) {}
}
