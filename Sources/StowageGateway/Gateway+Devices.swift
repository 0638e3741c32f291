import Foundation
import Hummingbird
import StowageProtocol
import StowageQR

/// What `POST /api/devices` answers: the contract's pairing (name, link, expiry) and the QR code as an image.
struct PairingAnswer: Encodable {
    var name: String
    var link: String
    var expiresAt: String
    /// The expiry in words, in the box's time zone ("until today 14:15 (10 minutes)").
    var expiresText: String
    /// `data:image/png;base64,…` of the link's QR code.
    var qrImage: String
}

extension Gateway {
    // MARK: pairing a browser

    /// `GET /pair/<code>`: a good code logs this browser in as its device (the session cookie, then the library);
    /// any other answer is a page saying why and what to do, with the status of the refusal (401, 429, 503).
    func pair(_ request: Request, context: some GatewayContext) async throws -> Response {
        let code = String(request.uri.path.dropFirst(PairingPage.prefix.count))
        do {
            let login = try await authenticator.pair(code: code, from: context.clientAddress)
            var response = Self.redirect("/", status: .seeOther)
            response.headers[.setCookie] = sessionCookie(login.id)
            logger.info("paired a browser", metadata: ["principal": "\(login.principal.name)"])
            return response
        } catch let error as GatewayError {
            if (request.headers[.accept] ?? "").contains("application/json") { throw error }
            var response = Self.html(PairingPage.render(message: error.message))
            response.status = error.status
            for field in error.headers { response.headers[field.name] = field.value }
            return response
        }
    }

    // MARK: the console's Devices page and its API (admin only)

    /// `GET /console/devices`.
    func devicesPage(_ identity: Identity) async throws -> Response {
        try Self.requireAdmin(identity, "the Devices page")
        return Self.html(DevicesConsolePage.render(try await backend.devices(), csrfToken: identity.csrfToken))
    }

    /// `GET /api/devices`: the contract's device objects, as `stowctl devices list --json`.
    func deviceList(_ identity: Identity) async throws -> Response {
        try Self.requireAdmin(identity, "the device list")
        return Self.json(try await backend.devices())
    }

    private struct AddDevice: Decodable {
        let name: String
    }

    /// `POST /api/devices` with `{"name": "tablet-3"}`: the device, its one-time link, expiry and QR code image.
    func addDevice(_ request: Request, identity: Identity) async throws -> Response {
        try Self.requireAdmin(identity, "add devices")
        var request = request
        let body = try await request.collectBody(upTo: Self.maxBodyBytes)
        guard let form = try? JSONDecoder().decode(AddDevice.self, from: Data(buffer: body)) else {
            throw GatewayError(.badRequest, .refused, "send JSON such as {\"name\": \"tablet-3\"}")
        }
        guard let base = configuration.publicURL ?? reachableURL.withLock({ $0 }) else {
            throw GatewayError(
                .serviceUnavailable, .internal,
                "the gateway does not know where devices reach it yet: start it with --public-url")
        }
        let pairing = try await backend.pairDevice(name: form.name)
        let link = base + pairing.path
        let qr: QRCode
        do {
            qr = try QRCode(link)
        } catch {
            throw GatewayError(.internalServerError, .internal, "no QR code for the link: \(error)")
        }
        let minutes = Int(pairing.validSeconds / 60)
        logger.info("device added for pairing", metadata: ["device": "\(pairing.name)"])
        return Self.json(
            PairingAnswer(
                name: pairing.name, link: link, expiresAt: pairing.expiresAt,
                expiresText: "until \(BoxTime.words(pairing.expiresAt)) (\(minutes) minutes)",
                qrImage: qr.pngDataURL()))
    }

    /// `POST /api/devices/<name>/revoke`.
    func revokeDevice(_ request: Request, identity: Identity) async throws -> Response {
        try Self.requireAdmin(identity, "revoke devices")
        let parts = request.uri.path.split(separator: "/").map(String.init)
        guard parts.count == 4, let name = parts[2].removingPercentEncoding else {
            throw GatewayError.notFound("revoke with POST /api/devices/NAME/revoke")
        }
        try await backend.revokeDevice(name: name)
        logger.info("device revoked", metadata: ["device": "\(name)"])
        return Self.json(["name": name, "revoked": "true"])
    }

    /// 403 for anyone but the admin.
    static func requireAdmin(_ identity: Identity, _ what: String) throws {
        guard identity.principal.isAdmin else {
            throw GatewayError(.forbidden, .forbidden, "only the admin may see \(what)")
        }
    }
}
