import HTTPTypes
import Hummingbird
import StowageProtocol

/// Every failure as the gateway's JSON error (`{"error": {"code", "message"}}`): a ``GatewayError`` as it is,
/// the router's own (no such route, method) with the matching code, anything else `internal`. A browser that
/// asks for the library or the console without a credential is sent to `/login` instead.
struct GatewayErrorMiddleware<Context: GatewayContext>: GatewayMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as GatewayError {
            if error.code == .unauthorized, Self.isPage(request.uri.path), request.method == .get,
                (request.headers[.accept] ?? "").contains("text/html")
            {
                return Gateway.redirect("/login", status: .seeOther)
            }
            return error.response
        } catch let error as HTTPError {
            return Self.translate(error, request).response
        } catch let error as any HTTPResponseError {
            return GatewayError(error.status, GatewayError.code(for: error.status), "\(error)").response
        } catch {
            return GatewayError(.internalServerError, .internal, "\(error)").response
        }
    }

    /// The hot path answers only what succeeds: anything that would fail takes the router, and its error this
    /// middleware.
    func admitsOffRouter(_ request: inout OffRouterRequest) -> Bool { true }
    func finishOffRouter(_ fields: inout HTTPFields) {}

    /// The pages a browser opens (the library, the console's): without a credential, the login page instead.
    static func isPage(_ path: String) -> Bool { path == "/" || path == "/console" || path.hasPrefix("/console/") }

    static func translate(_ error: HTTPError, _ request: Request) -> GatewayError {
        switch error.status {
        case .notFound: GatewayError.notFound("no such page: \(request.uri.path.prefix(200))")
        case .methodNotAllowed: GatewayError(.methodNotAllowed, .refused, "\(request.method) is not allowed here")
        case .contentTooLarge:
            GatewayError(.contentTooLarge, .refused, "the body is larger than \(Gateway.maxBodyBytes) bytes")
        default: GatewayError(error.status, GatewayError.code(for: error.status), error.body ?? "\(error.status)")
        }
    }
}
