import Foundation

/// A device of the LAN that `stowage-gateway` lets play (`stowctl devices add NAME`).
public struct DeviceInfo: Codable, Sendable, Equatable {
    public var name: String
    /// When it was added (ISO 8601).
    public var createdAt: String?
    /// When it was revoked (ISO 8601); nil while it may play.
    public var revokedAt: String?
    /// Its last plays, newest first (at most 20).
    public var lastPlays: [DevicePlay]
    /// Another box (`devices add --peer`): it reads manifests and files to fill from this box, never plays.
    public var peer: Bool?
    /// When it was last seen (ISO 8601): its last play or the last time the scheduler checked its credential
    /// (noted at most once a minute per device); nil: never.
    public var lastSeenAt: String?

    public init(name: String, createdAt: String?, revokedAt: String?, lastPlays: [DevicePlay]) {
        self.name = name
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.lastPlays = lastPlays
    }
}

/// One play of a title by a device.
public struct DevicePlay: Codable, Sendable, Equatable {
    public var token: String
    /// The title's name (nil when it has none).
    public var title: String?
    /// When the play was counted (ISO 8601).
    public var at: String

    public init(token: String, title: String?, at: String) {
        self.token = token
        self.title = title
        self.at = at
    }
}

/// A new device and its secret, shown once (`devices add`). The store keeps only its SHA-256.
public struct DeviceSecret: Codable, Sendable, Equatable {
    public var name: String
    public var secret: String

    public init(name: String, secret: String) {
        self.name = name
        self.secret = secret
    }
}

/// What a device presented to the gateway, checked by the scheduler (`authenticate`).
public enum DeviceCredential: Codable, Sendable, Equatable {
    /// `Authorization: Bearer SECRET` (or the secret given to `/login`).
    case secret(String)
    /// A signed URL: `?dev=NAME&exp=UNIX&sig=HEX` on `path` (see ``DeviceSignature``).
    case signed(device: String, path: String, expires: Double, signature: String)
}

/// Who a credential belongs to.
public struct DevicePrincipal: Codable, Sendable, Equatable {
    public var device: String
    /// A peer box's credential (`devices add --peer`): titles' manifests and files, no plays, no keys.
    public var peer: Bool?

    public init(device: String, peer: Bool = false) {
        self.device = device
        self.peer = peer ? true : nil
    }
}

/// Signed gateway URLs, for players that cannot send headers: `sig` is the lowercase hex HMAC-SHA256, keyed with
/// the device's URL key (which only the scheduler can derive: `DeviceURLKeys`), of `"<scope>|<exp>"`. The scope
/// of a path under `/titles/<key>/` is that title's folder (`/titles/<key>/`: the playlists, media and keys a
/// player fetches next are covered, and the gateway carries the query into the playlists it serves); any other
/// path is its own scope.
public enum DeviceSignature {
    /// The part of `path` a signature covers.
    public static func scope(of path: String) -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        if parts.count >= 2, parts[0] == "titles" { return "/titles/\(parts[1])/" }
        return path
    }

    /// Latest expiry accepted (unix seconds, year 2286): anything later is not a real signed URL.
    public static let maxExpires: Double = 9_999_999_999

    /// The text that is signed (`expires` is whole seconds within 0…``maxExpires``; others sign as `-1`).
    public static func message(path: String, expires: Double) -> String {
        let seconds = expires.isFinite && expires >= 0 && expires <= maxExpires ? Int64(expires) : -1
        return "\(scope(of: path))|\(seconds)"
    }
}
