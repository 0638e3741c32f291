import Foundation
import Hummingbird
import StowageProtocol

/// The operator's console: `/console` (the page), its fragments `/console/titles` and `/console/box` (the
/// script's refresh), `GET /api/console/titles`, `GET /api/console/box`, `POST /api/console/preview` (variants and
/// estimate) and `POST /api/titles` (submit). Admin only: a device gets 403 `forbidden`.
extension Gateway {
    func addConsoleRoutes<Context: GatewayContext>(to router: Router<Context>) {
        for method in [HTTPRequest.Method.get, .head] {
            for path in [ConsoleAssets.scriptPath, ConsoleAssets.stylePath] {
                router.on(RouterPath(path), method: method) { _, _ in ConsoleAssets.response(path) }
            }
            router.on("/console", method: method) { _, context in
                let identity = try Self.admin(context, "open the console")
                return Self.html(
                    ConsolePage.render(
                        try await self.consoleTitles(), box: await self.consoleBox(), csrfToken: identity.csrfToken))
            }
            router.on("/console/titles", method: method) { _, context in
                _ = try Self.admin(context, "read the console")
                return Self.html(ConsolePage.rows(try await self.consoleTitles()))
            }
            router.on("/console/box", method: method) { _, context in
                _ = try Self.admin(context, "read the console")
                return Self.html(ConsoleBoxPart.render(await self.consoleBox()))
            }
            router.on("/api/console/titles", method: method) { _, context in
                _ = try Self.admin(context, "read the console")
                return Self.json(try await self.consoleTitles())
            }
            router.on("/api/console/box", method: method) { _, context in
                _ = try Self.admin(context, "read the console")
                return Self.json(await self.consoleBox())
            }
        }
        router.post("/api/console/preview") { request, context in
            _ = try Self.admin(context, "look at a playlist")
            return Self.json(try await self.preview(try await Self.form(request)))
        }
        router.post("/api/titles") { request, context in
            _ = try Self.admin(context, "add titles")
            return try await self.submit(try await Self.form(request))
        }
    }

    /// The admin's identity, else 403 naming what only the admin may do.
    static func admin(_ context: some GatewayContext, _ what: String) throws -> Identity {
        let identity = try who(context)
        guard identity.principal.isAdmin else {
            throw GatewayError.forbidden("only the admin may \(what): the console is the operator's")
        }
        return identity
    }

    /// Every title as the operator sees it.
    func consoleTitles() async throws -> [ConsoleTitle] {
        try await backend.list().map(ConsoleTitle.init)
    }

    /// The box's figures, each part with its own error.
    func consoleBox() async -> ConsoleBox {
        guard let console = backend as? any ConsoleBackend else {
            let missing = "this gateway's backend answers no console requests"
            return ConsoleBox(
                problems: Dictionary(uniqueKeysWithValues: ConsoleBox.parts.map { ($0, missing) }))
        }
        return await ConsoleBox.read(console)
    }

    /// The scheduler side of the console, or 503 saying it is missing.
    func consoleBackend() throws -> any ConsoleBackend {
        guard let console = backend as? any ConsoleBackend else {
            throw GatewayError(.serviceUnavailable, .internal, "this gateway's backend answers no console requests")
        }
        return console
    }

    /// The add-title form of a request body.
    static func form(_ request: Request) async throws -> ConsoleTitleForm {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: maxBodyBytes)
        } catch {
            throw GatewayError(.contentTooLarge, .refused, "the form is larger than \(maxBodyBytes) bytes")
        }
        return try ConsoleTitleForm.decode(String(buffer: body))
    }

    /// `POST /api/console/preview`: the variants and the estimate of the form's selection, fetched by the gateway
    /// under the scheduler's rules for a title from that URL (``ConsoleBackend/fetchScope(url:)``: its
    /// `--allow-hosts`, `--allow-networks`, `--deny-networks`), never rules of the gateway's own.
    func preview(_ form: ConsoleTitleForm) async throws -> TitlePreview {
        let console = try consoleBackend()
        guard let previewer else {
            throw GatewayError(.serviceUnavailable, .internal, "this gateway has no fetcher to look at playlists")
        }
        let scope = try await console.fetchScope(url: form.trimmedURL)
        let preview = try await previewer.preview(form.work, scope: scope)
        logger.info("console preview", metadata: ["url": "\(URLRedaction.redacted(form.trimmedURL))"])
        return preview
    }

    /// `POST /api/titles`: submits the form's title; answers `{"token": …}` (201).
    func submit(_ form: ConsoleTitleForm) async throws -> Response {
        let token = try await consoleBackend().submit(form.submitRequest)
        titles.invalidate()
        logger.info("console submit", metadata: ["token": "\(token)", "url": "\(URLRedaction.redacted(form.url))"])
        var response = Self.json(["token": token])
        response.status = .created
        return response
    }
}
