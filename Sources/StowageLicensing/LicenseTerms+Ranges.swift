import StowageProtocol

// Terms and usage arrive from license servers, bundles and the store: decoded through the initialisers, which hold
// every number to a range the license rules can compute with (a play count past `Int.max - 1`, a duration of 1e300 s
// or a date of -inf once trapped a scheduler at each `list`). A limit out of range means what an absurd one would:
// the largest allowed.

extension LicenseTerms {
    private enum DecodingKeys: String, CodingKey {
        case kind, requestedAt, expiresAt, playDurationSeconds, playCountLimit, playTimeLimitSeconds, forceExpired
        case renewalSuggested
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: DecodingKeys.self)
        self.init(
            kind: try c.decode(Kind.self, forKey: .kind),
            requestedAt: LicenseRanges.date(try c.decode(Double.self, forKey: .requestedAt)) ?? 0,
            expiresAt: LicenseRanges.date(try c.decodeIfPresent(Double.self, forKey: .expiresAt)),
            playDurationSeconds: LicenseRanges.seconds(
                try c.decodeIfPresent(Double.self, forKey: .playDurationSeconds)),
            playCountLimit: LicenseRanges.count(try c.decodeIfPresent(Int.self, forKey: .playCountLimit)),
            playTimeLimitSeconds: LicenseRanges.seconds(
                try c.decodeIfPresent(Double.self, forKey: .playTimeLimitSeconds)),
            forceExpired: try c.decodeIfPresent(Bool.self, forKey: .forceExpired) ?? false,
            renewalSuggested: try c.decodeIfPresent(Bool.self, forKey: .renewalSuggested) ?? false)
    }
}

extension LicenseUsage {
    private enum DecodingKeys: String, CodingKey { case playCount, firstPlayedAt, playedSeconds }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: DecodingKeys.self)
        self.init(
            playCount: try c.decode(Int.self, forKey: .playCount),
            firstPlayedAt: try c.decodeIfPresent(Double.self, forKey: .firstPlayedAt),
            playedSeconds: try c.decode(Double.self, forKey: .playedSeconds))
    }
}

/// The ranges of license numbers.
public enum LicenseRanges {
    /// The most plays counted or allowed.
    public static let maxCount = 1_000_000_000
    /// Dates (seconds since 1970) from year 0 to year 5000: finite, and far inside what the rules add to them.
    public static let dates = -62_167_219_200.0...95_617_584_000.0

    /// A count within 0…``maxCount`` (negative: nil, as the initialiser reads it; larger: the most).
    public static func count(_ value: Int?) -> Int? {
        value.map { min($0, maxCount) }
    }

    /// A duration held to 0…100 years; not finite: nil.
    public static func seconds(_ value: Double?) -> Double? {
        guard let value, !value.isNaN else { return nil }
        return min(max(value, -OutsideNumbers.maxSeconds), OutsideNumbers.maxSeconds)
    }

    /// A date held to ``dates``; NaN: nil.
    public static func date(_ value: Double?) -> Double? {
        guard let value, !value.isNaN else { return nil }
        return min(max(value, dates.lowerBound), dates.upperBound)
    }
}
