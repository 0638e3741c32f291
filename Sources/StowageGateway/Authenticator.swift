import Crypto
import Foundation
import Hummingbird
import StowageProtocol
import Synchronization

/// Who a request acts for: the admin (the gateway's own secret) or a device of the LAN.
public enum Principal: Sendable, Equatable {
    case admin
    case device(String)

    /// The name sessions and plays are kept under.
    public var name: String {
        switch self {
        case .admin: "admin"
        case .device(let name): name
        }
    }

    /// Whether it may manage titles.
    public var isAdmin: Bool { self == .admin }
}

/// A request's identity: who, and the signed-URL query to carry into the playlists it is served.
public struct Identity: Sendable, Equatable {
    public var principal: Principal
    /// `dev=…&exp=…&sig=…` as received, when the request was authorised by a signed URL.
    public var signedQuery: String?
}

/// Checks credentials: `Authorization: Bearer SECRET`, a signed URL (`?dev=&exp=&sig=`), or the
/// `stowage_session` cookie that `/login` sets. The admin secret is checked here (constant time); device
/// secrets and signatures by the scheduler, whose successful answers are kept at most `cacheSeconds` (one
/// second: a player's burst of segment requests costs one check, and a revocation takes effect at once).
public final class Authenticator: Sendable {
    /// The session cookie's name.
    public static let cookieName = "stowage_session"

    private struct Cached {
        var principal: Principal
        var at: Double
    }

    private struct LoginSession {
        var principal: Principal
        /// The device's secret, checked again (through the cache) on every use.
        var credential: DeviceCredential?
        var at: Double
    }

    private let backend: any GatewayBackend
    private let adminDigest: [UInt8]?
    private let cacheSeconds: Double
    private let clock: @Sendable () -> Double
    private let cache = Mutex<[String: Cached]>([:])
    private let sessions = Mutex<[String: LoginSession]>([:])

    /// `adminSecret` nil: no admin. `clock`: monotonic seconds.
    public init(
        backend: any GatewayBackend, adminSecret: String?, cacheSeconds: Double = 1,
        clock: @escaping @Sendable () -> Double
    ) {
        self.backend = backend
        adminDigest = adminSecret.flatMap { $0.isEmpty ? nil : Array(SHA256.hash(data: Data($0.utf8))) }
        self.cacheSeconds = cacheSeconds
        self.clock = clock
    }

    /// The identity of `request`, or `unauthorized`.
    public func identify(_ request: Request) async throws -> Identity {
        if let authorization = request.headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                throw GatewayError.unauthorized("use Authorization: Bearer SECRET")
            }
            let secret = parts[1].trimmingCharacters(in: .whitespaces)
            return Identity(principal: try await check(secret: secret), signedQuery: nil)
        }
        if let signed = Self.signedQuery(request.uri.query) {
            guard let seconds = Int64(signed.exp), seconds >= 0, Double(seconds) <= DeviceSignature.maxExpires else {
                throw GatewayError.unauthorized("the signed URL's exp is not a time")
            }
            let expires = Double(seconds)
            let credential = DeviceCredential.signed(
                device: signed.dev, path: request.uri.path, expires: expires, signature: signed.sig)
            let key = "g:\(signed.dev)|\(DeviceSignature.scope(of: request.uri.path))|\(signed.exp)|\(signed.sig)"
            let principal = try await cached(key) { .device(try await self.backend.authenticate(credential).device) }
            return Identity(principal: principal, signedQuery: signed.query)
        }
        if let id = Self.cookie(Self.cookieName, in: request.headers[values: .cookie]) {
            guard let session = sessions.withLock({ $0[id] }) else {
                throw GatewayError.unauthorized("the session has ended: log in again")
            }
            if case .secret(let secret)? = session.credential {
                return Identity(principal: try await check(secret: secret), signedQuery: nil)
            }
            if case .signed(let dev, let path, let expires, let sig)? = session.credential {
                // Opened by a signed URL of the library page: valid while that URL is (expiry, revocation).
                let key = "g:\(dev)|\(DeviceSignature.scope(of: path))|\(Int64(expires))|\(sig)"
                let principal = try await cached(key) {
                    .device(try await self.backend.authenticate(session.credential!).device)
                }
                return Identity(principal: principal, signedQuery: nil)
            }
            return Identity(principal: session.principal, signedQuery: nil)
        }
        throw GatewayError.unauthorized()
    }

    /// Checks `secret` (the admin's or a device's) and opens a login session: its id, for the cookie.
    public func login(secret: String) async throws -> (id: String, principal: Principal) {
        let principal = try await check(secret: secret)
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &generator) }
        let id = bytes.map { String(format: "%02x", $0) }.joined()
        let now = clock()
        let credential: DeviceCredential? = principal.isAdmin ? nil : .secret(secret)
        sessions.withLock {
            Self.prune(&$0, now: now)
            $0[id] = LoginSession(principal: principal, credential: credential, at: now)
        }
        return (id, principal)
    }

    /// A browser that opened the library page with a signed URL gets a session (a cookie) bound to that URL's
    /// signature, so the page's own requests (`/api/titles`, `/events`, posters) are authorised too.
    public func session(forSigned request: Request) -> String? {
        guard Self.cookie(Self.cookieName, in: request.headers[values: .cookie]) == nil,
            let signed = Self.signedQuery(request.uri.query), let expires = Double(signed.exp)
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &generator) }
        let id = bytes.map { String(format: "%02x", $0) }.joined()
        let credential = DeviceCredential.signed(
            device: signed.dev, path: request.uri.path, expires: expires, signature: signed.sig)
        let now = clock()
        sessions.withLock {
            Self.prune(&$0, now: now)
            $0[id] = LoginSession(principal: .device(signed.dev), credential: credential, at: now)
        }
        return id
    }

    /// Login sessions are kept 12 hours and at most 10,000 (the oldest go first): a client that logs in over and
    /// over cannot grow the gateway's memory.
    private static func prune(_ sessions: inout [String: LoginSession], now: Double) {
        sessions = sessions.filter { now - $0.value.at <= 12 * 3600 }
        if sessions.count >= 10_000 {
            for (id, _) in sessions.sorted(by: { $0.value.at < $1.value.at }).prefix(sessions.count - 9_999) {
                sessions[id] = nil
            }
        }
    }

    /// Ends a login session.
    public func logout(_ request: Request) {
        guard let id = Self.cookie(Self.cookieName, in: request.headers[values: .cookie]) else { return }
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }

    /// The admin's or a device's secret.
    private func check(secret: String) async throws -> Principal {
        guard !secret.isEmpty else { throw GatewayError.unauthorized("empty secret") }
        if let adminDigest, Self.constantTimeEqual(Array(SHA256.hash(data: Data(secret.utf8))), adminDigest) {
            return .admin
        }
        let key = "s:" + SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
        return try await cached(key) { .device(try await self.backend.authenticate(.secret(secret)).device) }
    }

    private func cached(_ key: String, _ check: () async throws -> Principal) async throws -> Principal {
        let now = clock()
        if let hit = cache.withLock({ $0[key] }), now - hit.at <= cacheSeconds { return hit.principal }
        do {
            let principal = try await check()
            cache.withLock { cache in
                if cache.count > 4096 { cache = cache.filter { now - $0.value.at <= cacheSeconds } }
                cache[key] = Cached(principal: principal, at: now)
            }
            return principal
        } catch let error as GatewayError where error.code == .unauthorized || error.code == .notFound {
            throw GatewayError.unauthorized(error.message)
        }
    }

    /// `dev`, `exp` and `sig` of a query, and the three as received (for carrying into playlists).
    static func signedQuery(_ query: String?) -> (dev: String, exp: String, sig: String, query: String)? {
        guard let query else { return nil }
        var values: [String: String] = [:]
        var raw: [String] = []
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2, ["dev", "exp", "sig"].contains(kv[0]) else { continue }
            values[kv[0]] = kv[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? kv[1]
            raw.append(String(pair))
        }
        guard let dev = values["dev"], let exp = values["exp"], let sig = values["sig"] else { return nil }
        return (dev, exp, sig, raw.joined(separator: "&"))
    }

    /// A cookie's value from `Cookie` header values.
    static func cookie(_ name: String, in headers: [String]) -> String? {
        for header in headers {
            for part in header.split(separator: ";") {
                let kv = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if kv.count == 2, kv[0] == name { return String(kv[1]) }
            }
        }
        return nil
    }

    /// Compares two digests without an early exit.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
