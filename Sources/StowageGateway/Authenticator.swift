import Crypto
import Foundation
import Hummingbird
import StowageProtocol
import Synchronization

/// Who a request acts for: the admin (the gateway's own secret) or a device of the LAN.
public enum Principal: Sendable, Equatable {
    case admin
    case device(String)
    /// Another box (`stowctl devices add NAME --peer`): it reads titles' manifests and files to fill from this box;
    /// it never plays and gets no keys.
    case peer(String)

    /// The name sessions and plays are kept under.
    public var name: String {
        switch self {
        case .admin: "admin"
        case .device(let name), .peer(let name): name
        }
    }

    /// Whether it may manage titles.
    public var isAdmin: Bool { self == .admin }

    /// Whether it is a peer box's credential.
    public var isPeer: Bool { if case .peer = self { true } else { false } }
}

/// A request's identity: who, and the signed-URL query to carry into the playlists it is served.
public struct Identity: Sendable, Equatable {
    public var principal: Principal
    /// `dev=…&exp=…&sig=…` as received, when the request was authorised by a signed URL.
    public var signedQuery: String?
    /// The login session's CSRF token, when the request was authorised by the session cookie (a browser, which
    /// another site's page could make send that cookie): its state-changing requests must carry it.
    public var csrfToken: String?

    public init(principal: Principal, signedQuery: String? = nil, csrfToken: String? = nil) {
        self.principal = principal
        self.signedQuery = signedQuery
        self.csrfToken = csrfToken
    }
}

/// Checks credentials: `Authorization: Bearer SECRET`, a signed URL (`?dev=&exp=&sig=`), or the
/// `stowage_session` cookie that `/login` sets. The admin secret is checked here (constant time); device
/// secrets and signatures by the scheduler, whose answers are kept briefly (``CredentialCache``).
///
/// Guessing is throttled per client address (``Throttle``): after a few bad secrets or signatures an address
/// is answered 429 before anything is checked, while a credential already known good still passes.
public final class Authenticator: Sendable {
    /// The session cookie's name.
    public static let cookieName = "stowage_session"

    private let backend: any GatewayBackend
    private let adminDigest: [UInt8]?
    private let clock: @Sendable () -> Double
    private let wallClock: @Sendable () -> Double
    private let cache: CredentialCache
    private let sessions = Mutex(SessionTable())
    private let throttle: Mutex<Throttle>

    /// `adminSecret` nil: no admin. `clock`: monotonic seconds (sessions, caches, throttle); `wallClock`: unix
    /// seconds (a signed URL's `exp`).
    public init(
        backend: any GatewayBackend, adminSecret: String?, throttle: Throttle.Policy = .init(),
        clock: @escaping @Sendable () -> Double,
        wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
        outage: SchedulerOutage = SchedulerOutage()
    ) {
        self.backend = backend
        adminDigest = adminSecret.flatMap { $0.isEmpty ? nil : Array(SHA256.hash(data: Data($0.utf8))) }
        self.clock = clock
        self.wallClock = wallClock
        cache = CredentialCache(clock: clock, outage: outage)
        self.throttle = Mutex(Throttle(policy: throttle))
    }

    /// The identity of `request` from `address`: `unauthorized`, 400 for a malformed signed URL, or 429 while
    /// the address is throttled.
    public func identify(_ request: Request, from address: String) async throws -> Identity {
        if let authorization = request.headers[.authorization] {
            guard let secret = Self.bearerSecret(authorization) else {
                throw GatewayError.unauthorized("use Authorization: Bearer SECRET")
            }
            return Identity(principal: try await check(secret: secret, from: address))
        }
        if let signed = try SignedQuery.parse(request.uri.query, now: wallClock()) {
            let principal = try await check(signed.credential(path: request.uri.path), from: address)
            return Identity(principal: principal, signedQuery: signed.raw)
        }
        if let id = Self.cookie(Self.cookieName, in: request.headers[values: .cookie]) {
            let now = clock()
            guard let session = sessions.withLock({ $0.session(id, now: now) }) else {
                throw GatewayError.unauthorized("the session has ended: log in again")
            }
            var principal = session.principal
            if let credential = session.credential {
                // A device's secret or signed URL: valid while that is (expiry, revocation). Not throttled: the
                // session id proved the login already, and a guess at one costs no scheduler round trip.
                principal = try await check(credential, from: nil)
            }
            return Identity(principal: principal, csrfToken: session.csrfToken)
        }
        throw GatewayError.unauthorized()
    }

    /// A login session just opened: the cookie's value and the CSRF token its pages carry.
    public struct Login: Sendable {
        public var id: String
        public var csrfToken: String
        public var principal: Principal
    }

    /// Checks `secret` (the admin's or a device's) from `address` and opens a login session.
    public func login(secret: String, from address: String) async throws -> Login {
        let principal = try await check(secret: secret, from: address)
        throttle.withLock { $0.succeeded(address) }
        return open(principal: principal, credential: principal.isAdmin ? nil : .secret(secret))
    }

    /// Redeems a pairing code (`GET /pair/<code>`) from `address` and opens a device session holding the grant's
    /// signed credential (never the device's secret). Throttled as secrets are: a refused code counts against the
    /// address, and a throttled address is answered 429 before the scheduler is asked.
    public func pair(code: String, from address: String) async throws -> Login {
        try refuseIfThrottled(address)
        do {
            let grant = try await backend.redeemPairing(code: code)
            throttle.withLock { $0.succeeded(address) }
            return open(principal: .device(grant.device), credential: grant.credential)
        } catch let error as GatewayError where error.code == .unauthorized {
            _ = throttle.withLock { $0.failed(address, now: clock()) }
            throw error
        }
    }

    /// A browser that opened the library page with a signed URL gets a session (a cookie) bound to that URL's
    /// signature, so the page's own requests (`/api/titles`, `/events`, posters) are authorised too.
    func login(signed: SignedQuery, path: String) -> Login {
        open(principal: .device(signed.dev), credential: signed.credential(path: path))
    }

    private func open(principal: Principal, credential: DeviceCredential?) -> Login {
        let id = Self.randomHex(), token = Self.randomHex()
        let now = clock()
        let session = SessionTable.Session(
            principal: principal, credential: credential, csrfToken: token, openedAt: now)
        sessions.withLock { $0.open(id, session, now: now) }
        return Login(id: id, csrfToken: token, principal: principal)
    }

    /// Ends the login session of `request`'s cookie.
    public func logout(_ request: Request) {
        guard let id = Self.cookie(Self.cookieName, in: request.headers[values: .cookie]) else { return }
        sessions.withLock { $0.close(id) }
    }

    /// Login sessions kept: (admin, devices).
    var sessionCounts: (admin: Int, devices: Int) { sessions.withLock { $0.counts } }

    /// The admin's or a device's secret; `address` nil: not throttled.
    private func check(secret: String, from address: String?) async throws -> Principal {
        guard !secret.isEmpty else { throw GatewayError.unauthorized("empty secret") }
        let digest = Array(SHA256.hash(data: Data(secret.utf8)))
        if let adminDigest, Self.constantTimeEqual(digest, adminDigest) {
            // A throttled address learns nothing, not even that a guess of the admin's secret was right.
            try refuseIfThrottled(address)
            return .admin
        }
        return try await checked(Self.secretKey(digest), .secret(secret), from: address)
    }

    private func check(_ credential: DeviceCredential, from address: String?) async throws -> Principal {
        switch credential {
        case .secret(let secret):
            return try await check(secret: secret, from: address)
        case .signed(let dev, let path, let expires, let sig):
            let key = "g:\(dev)|\(DeviceSignature.scope(of: path))|\(Int64(expires))|\(sig)"
            return try await checked(key, credential, from: address)
        }
    }

    /// A device credential: a fresh good answer passes at once; otherwise the address must not be throttled,
    /// and a bad answer (fresh from the cache or the scheduler) counts against it.
    private func checked(_ key: String, _ credential: DeviceCredential, from address: String?) async throws
        -> Principal
    {
        let check = checker(credential)
        // Known good: served from the cache (which refreshes it ahead of its end), not throttled.
        if case .good? = cache.lookup(key), let principal = try? await cache.principal(key, check: check) {
            return principal
        }
        try refuseIfThrottled(address)
        do {
            return try await cache.principal(key, check: check)
        } catch let error as GatewayError where error.code == .unauthorized {
            if let address { _ = throttle.withLock { $0.failed(address, now: clock()) } }
            throw error
        }
    }

    /// The scheduler's check of `credential`, for the cache.
    private func checker(_ credential: DeviceCredential) -> @Sendable () async throws -> Principal {
        let backend = self.backend
        return {
            let principal = try await backend.authenticate(credential)
            return principal.peer == true ? .peer(principal.device) : .device(principal.device)
        }
    }

    /// The device or peer an `Authorization: Bearer SECRET` value names when the cache holds it as good (fresh);
    /// nil otherwise, and for the admin's secret (its throttle rule wants ``identify(_:from:)``). Never waits: the
    /// title hot path asks it on an event loop.
    func knownBearer(_ authorization: String) -> Principal? {
        guard let secret = Self.bearerSecret(authorization), !secret.isEmpty else { return nil }
        let digest = Array(SHA256.hash(data: Data(secret.utf8)))
        if let adminDigest, Self.constantTimeEqual(digest, adminDigest) { return nil }
        return cache.knownGood(Self.secretKey(digest), check: checker(.secret(secret)))
    }

    /// The secret of an `Authorization: Bearer SECRET` value (nil: another scheme or none).
    static func bearerSecret(_ authorization: String) -> String? {
        let scheme = "bearer ".utf8
        guard authorization.utf8.count > scheme.count,
            zip(authorization.utf8, scheme).allSatisfy({ $0 | 0x20 == $1 })
        else { return nil }
        return trimmed(Substring(authorization.utf8.dropFirst(scheme.count)))
    }

    /// The cache key of a secret: `s:` and its SHA-256 in hex (the cache never holds secrets).
    private static func secretKey(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return "s:"
            + String(unsafeUninitializedCapacity: digest.count * 2) { buffer in
                for (i, byte) in digest.enumerated() {
                    buffer[2 * i] = digits[Int(byte >> 4)]
                    buffer[2 * i + 1] = digits[Int(byte & 0xf)]
                }
                return digest.count * 2
            }
    }

    /// Throws 429 (with `Retry-After`) while `address` must wait; nil: not throttled.
    private func refuseIfThrottled(_ address: String?) throws {
        if let address, case .wait(let seconds) = throttle.withLock({ $0.decision(for: address, now: clock()) }) {
            throw GatewayError.throttled(retryAfter: seconds)
        }
    }

    /// 32 random bytes in hex.
    static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for _ in 0..<4 {
            var word = generator.next()
            for _ in 0..<16 {
                hex.append(digits[Int(word & 0xf)])
                word >>= 4
            }
        }
        return String(decoding: hex, as: UTF8.self)
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

    /// `text` without leading and trailing spaces and tabs (Foundation's trimming bridges to `NSString`, and every
    /// request carries a credential).
    static func trimmed(_ text: Substring) -> String {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
