import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization

@testable import StowageGateway

/// A request context whose client address the test chooses (`AddressedContext.$address.withValue`): Hummingbird's
/// router test client has no socket, and the throttle is per address.
struct AddressedContext: GatewayContext {
    @TaskLocal static var address = "192.0.2.1"

    var coreContext: CoreRequestContextStorage
    let clientAddress: String
    var identity: Identity?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = Self.address
        identity = nil
    }
}

/// Monotonic seconds that move only when the test says so.
final class ManualClock: Sendable {
    private let value = Mutex(1000.0)

    var seconds: Double { value.withLock { $0 } }

    func advance(_ seconds: Double) { value.withLock { $0 += seconds } }
}

/// A gateway over ``FakeBackend`` with a clock the test moves, and helpers for logging in as a browser does.
struct TrustFixture: Sendable {
    let root: URL
    let backend: FakeBackend
    let gateway: Gateway
    let now = ManualClock()

    init(
        configuration: (URL) -> Gateway.Configuration = { .init(titlesRoot: $0, adminSecret: "admin-secret") },
        backend: FakeBackend = FakeBackend(), wallClock: Double = 1_800_000_000
    ) throws {
        root = try GatewayHTTPTests.titles()
        self.backend = backend
        let now = self.now
        gateway = Gateway(
            configuration: configuration(root), backend: backend, logger: Logger(label: "test"),
            clock: { now.seconds }, wallClock: { wallClock })
    }

    /// Runs `body` against the gateway's router.
    func test(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let app = Application(router: gateway.router(context: AddressedContext.self))
        try await app.test(.router, body)
    }

    static let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    /// Logs in with `secret` through `/login`: the `stowage_session=…` cookie, or nil when refused.
    static func login(_ client: some TestClientProtocol, secret: String) async throws -> String? {
        try await client.execute(
            uri: "/login", method: .post, headers: form, body: ByteBuffer(string: "secret=\(secret)")
        ) { response in
            guard response.status == .seeOther, let set = response.headers[.setCookie] else { return nil }
            return String(set.split(separator: ";")[0])
        }
    }

    /// The CSRF token of the library page the cookie's session is shown.
    static func csrfToken(_ client: some TestClientProtocol, cookie: String) async throws -> String {
        try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) { response in
            let page = String(buffer: response.body)
            guard let meta = page.range(of: "<meta name=\"csrf-token\" content=\"") else { return "" }
            return String(page[meta.upperBound...].prefix { $0 != "\"" })
        }
    }
}
