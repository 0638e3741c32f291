import StowageProtocol

/// License decisions, without I/O: when a license ends, what is left of it, whether it allows a play.
public enum LicensePolicy {
    /// The moment the license ends: the earlier of the rental expiry and first play + play duration.
    public static func effectiveExpiry(_ terms: LicenseTerms, _ usage: LicenseUsage) -> Double? {
        let playEnd = terms.playDurationSeconds.flatMap { d in usage.firstPlayedAt.map { $0 + d } }
        switch (terms.expiresAt, playEnd) {
        case (let a?, let b?): return min(a, b)
        case (let a?, nil): return a
        case (nil, let b?): return b
        default: return nil
        }
    }

    public static func playsRemaining(_ terms: LicenseTerms, _ usage: LicenseUsage) -> Int? {
        terms.playCountLimit.map { max(0, $0.subtractingReportingOverflow(usage.playCount).partialValue) }
    }

    public static func playTimeRemaining(_ terms: LicenseTerms, _ usage: LicenseUsage) -> Double? {
        terms.playTimeLimitSeconds.map { max(0, $0 - usage.playedSeconds) }
    }

    /// Why the license does not allow playing now (nil: it does). `clockRolledBack`: the wall clock went
    /// back beyond the tolerance since last seen, so time-limited licenses count as expired until renewed.
    /// `startingPlay`: a new play is about to be counted (so a used-up play count refuses it).
    public static func refusal(
        _ terms: LicenseTerms, _ usage: LicenseUsage, now: Double, clockRolledBack: Bool,
        startingPlay: Bool
    ) -> String? {
        reason(terms, usage, now: now, clockRolledBack: clockRolledBack, startingPlay: startingPlay)?.message
    }

    /// ``refusal(_:_:now:clockRolledBack:startingPlay:)`` with the code `status --json` shows.
    public static func reason(
        _ terms: LicenseTerms, _ usage: LicenseUsage, now: Double, clockRolledBack: Bool,
        startingPlay: Bool
    ) -> NotPlayableReason? {
        if terms.forceExpired {
            return .init(.licenseExpired, "the license server revoked the license (forced expiry)")
        }
        if clockRolledBack && terms.isTimeLimited {
            return .init(
                .clockRolledBack,
                "the system clock went back; time-limited licenses count as expired until renewed online "
                    + "(stowctl renew)")
        }
        if let end = effectiveExpiry(terms, usage), now >= end {
            if let playEnd = terms.playDurationSeconds.flatMap({ d in usage.firstPlayedAt.map { $0 + d } }),
                playEnd <= now
            {
                let seconds = Int(exactly: (terms.playDurationSeconds ?? 0).rounded()) ?? 0
                return .init(.licenseExpired, "the play duration ended (\(seconds) s after the first play)")
            }
            return .init(.licenseExpired, "the rental expired")
        }
        if let left = playTimeRemaining(terms, usage), left <= 0 {
            return .init(.licenseUsedUp, "the total play time is used up")
        }
        if startingPlay, let left = playsRemaining(terms, usage), left <= 0 {
            return .init(.licenseUsedUp, "all \(terms.playCountLimit ?? 0) plays are used")
        }
        return nil
    }

    /// Whether an automatic renewal is due `lead` seconds before the license ends.
    public static func renewalDue(_ terms: LicenseTerms, _ usage: LicenseUsage, now: Double, lead: Double) -> Bool {
        if terms.renewalSuggested { return true }
        guard let end = effectiveExpiry(terms, usage) else { return false }
        return end - now <= lead
    }
}
