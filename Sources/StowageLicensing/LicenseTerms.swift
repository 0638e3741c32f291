/// The terms a license was granted with (what the server granted is what counts, not what was asked).
public struct LicenseTerms: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case none, purchase, rental }

    public var kind: Kind
    /// When the license was requested: a rental's clock starts here.
    public var requestedAt: Double
    /// Absolute expiry (rental), nil = never.
    public var expiresAt: Double?
    /// Dual expiry: the license also ends this long after the first play.
    public var playDurationSeconds: Double?
    /// At most this many plays (nil or 0 = unlimited).
    public var playCountLimit: Int?
    /// At most this much media played in total (nil or 0 = unlimited).
    public var playTimeLimitSeconds: Double?
    /// The server revoked the license.
    public var forceExpired: Bool
    /// The server suggests renewing soon.
    public var renewalSuggested: Bool

    public init(
        kind: Kind, requestedAt: Double, expiresAt: Double? = nil, playDurationSeconds: Double? = nil,
        playCountLimit: Int? = nil, playTimeLimitSeconds: Double? = nil, forceExpired: Bool = false,
        renewalSuggested: Bool = false
    ) {
        // Held to ranges the rules compute with (``LicenseRanges``): the numbers come from license servers and bundles.
        self.kind = kind
        self.requestedAt = LicenseRanges.date(requestedAt) ?? 0
        self.expiresAt = LicenseRanges.date(expiresAt)
        self.playDurationSeconds = LicenseRanges.seconds(playDurationSeconds).flatMap { $0 > 0 ? $0 : nil }
        self.playCountLimit = LicenseRanges.count(playCountLimit).flatMap { $0 > 0 ? $0 : nil }
        self.playTimeLimitSeconds = LicenseRanges.seconds(playTimeLimitSeconds).flatMap { $0 > 0 ? $0 : nil }
        self.forceExpired = forceExpired
        self.renewalSuggested = renewalSuggested
    }

    /// Whether any limit depends on the clock (these expire when the clock cannot be trusted).
    public var isTimeLimited: Bool { expiresAt != nil || playDurationSeconds != nil }
}

/// How a title has been used so far.
public struct LicenseUsage: Codable, Sendable, Equatable {
    public var playCount: Int
    public var firstPlayedAt: Double?
    public var playedSeconds: Double

    public init(playCount: Int = 0, firstPlayedAt: Double? = nil, playedSeconds: Double = 0) {
        self.playCount = max(0, LicenseRanges.count(playCount) ?? 0)
        self.firstPlayedAt = LicenseRanges.date(firstPlayedAt)
        self.playedSeconds = max(0, LicenseRanges.seconds(playedSeconds) ?? 0)
    }
}
