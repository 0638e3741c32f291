/// A device added with a one-time pairing code (`stowctl devices add NAME --pair`, the console's "Add a device").
/// The code is shown only here; the scheduler keeps its SHA-256. Its link is the gateway's address + ``path``.
public struct DevicePairing: Codable, Sendable, Equatable {
    public var name: String
    /// At least 128 random bits, base64url: what follows `/pair/` in the link.
    public var code: String
    /// When the code stops working (ISO 8601).
    public var expiresAt: String
    /// How long it was valid for when given (seconds).
    public var validSeconds: Double

    public init(name: String, code: String, expiresAt: String, validSeconds: Double) {
        self.name = name
        self.code = code
        self.expiresAt = expiresAt
        self.validSeconds = validSeconds
    }

    /// The gateway path that redeems `code`.
    public static func path(code: String) -> String { "/pair/\(code)" }

    /// The gateway path of this pairing.
    public var path: String { Self.path(code: code) }
}

/// A redeemed pairing code: the device, and a signed credential (as `devices sign` makes, on the path `/`) that the
/// gateway keeps in the browser's login session, so the session ends when the device is revoked, as a secret's
/// does, without the device's secret ever leaving the scheduler.
public struct PairingGrant: Codable, Sendable, Equatable {
    public var device: String
    /// The signed path (always `/`), its expiry (unix seconds) and signature (``DeviceSignature``).
    public var path: String
    public var expires: Double
    public var signature: String

    public init(device: String, path: String, expires: Double, signature: String) {
        self.device = device
        self.path = path
        self.expires = expires
        self.signature = signature
    }

    /// The credential the session checks again on every use.
    public var credential: DeviceCredential {
        .signed(device: device, path: path, expires: expires, signature: signature)
    }
}
