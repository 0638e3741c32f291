import HTTPTypes
import Hummingbird

/// Finds who a request acts for (``Authenticator``) and puts it in the context before any route runs, so no
/// route can forget to ask. `/login`, `/pair/<code>` and the page's static script and style need no credential;
/// `/logout` works with or without one.
struct CredentialMiddleware<Context: GatewayContext>: GatewayMiddleware {
    let authenticator: Authenticator

    /// Paths served to anyone.
    static var publicPaths: Set<String> { ["/login", LibraryAssets.scriptPath, LibraryAssets.stylePath] }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        if Self.publicPaths.contains(path) || PairingPage.isPairingPath(path) {
            return try await next(request, context)
        }
        var context = context
        do {
            context.identity = try await authenticator.identify(request, from: context.clientAddress)
        } catch let error as GatewayError where path == "/logout" && error.code == .unauthorized {
            context.identity = nil
        }
        return try await next(request, context)
    }

    /// Off the router only a bearer credential the cache holds good (``Authenticator/knownBearer(_:)``): a query
    /// (which may be a signed URL), a cookie, a credential not known yet or no longer, take the router.
    func admitsOffRouter(_ request: inout OffRouterRequest) -> Bool {
        guard let path = request.head.path, !path.utf8.contains(UInt8(ascii: "?")),
            let authorization = request.head.headerFields[.authorization],
            let principal = authenticator.knownBearer(authorization)
        else { return false }
        request.principal = principal
        return true
    }

    func finishOffRouter(_ fields: inout HTTPFields) {}
}
