import Hummingbird
import StowageProtocol

extension Gateway {
    /// Every route of the gateway in one router, behind ``middleware(_:configuration:authenticator:)`` (only
    /// those: the hot path does what each does). `zeroCopy`: title files are answered as ``FileSlice``s, for a
    /// channel with a ``FileRegionWriter`` (only ``application(listen:onRunning:)`` builds one).
    public func router<Context: GatewayContext>(
        context: Context.Type = GatewayRequestContext.self, zeroCopy: Bool = false
    ) -> Router<Context> {
        let router = Router(context: Context.self)
        for middleware in Self.middleware(Context.self, configuration: configuration, authenticator: authenticator) {
            Self.add(middleware, to: router)
        }

        for method in [HTTPRequest.Method.get, .head] {
            for path in [LibraryAssets.scriptPath, LibraryAssets.stylePath, LibraryAssets.playScriptPath] {
                router.on(RouterPath(path), method: method) { _, _ in LibraryAssets.response(path) }
            }
            router.on("/login", method: method) { _, _ in self.loginPage() }
            for path in [DevicesConsoleAssets.scriptPath, DevicesConsoleAssets.stylePath] {
                router.on(RouterPath(path), method: method) { _, context in
                    _ = try Self.who(context)
                    return DevicesConsoleAssets.response(path)
                }
            }
            router.on("/console/devices", method: method) { _, context in
                try await self.devicesPage(try Self.who(context))
            }
            router.on("/api/devices", method: method) { _, context in
                try await self.deviceList(try Self.who(context))
            }
            router.on("/", method: method) { request, context in
                try await self.library(request, identity: try Self.who(context))
            }
            router.on("/api/titles", method: method) { _, context in
                try await self.titleList(try Self.who(context))
            }
            router.on("/play/{key}", method: method) { request, context in
                try await self.playPage(request, identity: try Self.who(context))
            }
            router.on("/resolve", method: method) { request, context in
                _ = try Self.who(context)
                return try await self.resolve(request)
            }
        }
        router.post("/login") { request, context in try await self.login(request, context: context) }
        router.post("/logout") { request, _ in self.logout(request) }
        // GET only: a HEAD (a link checker's) must not burn a pairing code it cannot use.
        router.get("/pair/{code}") { request, context in
            try await self.pair(request, context: context)
        }
        router.get("/logout") { _, _ -> Response in
            throw GatewayError(.methodNotAllowed, .refused, "log out with POST (the library page's button)")
        }
        router.post("/api/titles/{token}/{action}") { request, context in
            try await self.manage(request, identity: try Self.who(context))
        }
        router.post("/api/devices") { request, context in
            try await self.addDevice(request, identity: try Self.who(context))
        }
        router.post("/api/devices/{name}/revoke") { request, context in
            try await self.revokeDevice(request, identity: try Self.who(context))
        }
        addConsoleRoutes(to: router)
        router.get("/events") { _, context in
            try await self.events(try Self.who(context), gone: context.clientGone)
        }
        // Every endpoint under a title: ``TitleRoute`` tells which (the hot path asks it too).
        for path in ["/titles/{key}", "/titles/{key}/**"] {
            for method in [HTTPRequest.Method.get, .head, .post] {
                router.on(RouterPath(path), method: method) { request, context in
                    try await self.title(request, identity: try Self.who(context), context: context, zeroCopy: zeroCopy)
                }
            }
        }
        return router
    }

    private static func add<Context, Middleware: GatewayMiddleware<Context>>(
        _ middleware: Middleware, to router: Router<Context>
    ) {
        router.add(middleware: middleware)
    }

    /// The identity the credential middleware found (a route without one is a wiring mistake: 401, not a crash).
    static func who(_ context: some GatewayContext) throws -> Identity {
        guard let identity = context.identity else { throw GatewayError.unauthorized() }
        return identity
    }
}
