import StowageLicensing
import StowageStore

extension TitleRecord {
    /// What was used of the title's license so far (plays, the first play, time played): the one reading of the
    /// record's usage fields, for the license checks, the expiry notice and a bundle's terms.
    var licenseUsage: LicenseUsage {
        LicenseUsage(playCount: playCount, firstPlayedAt: firstPlayedAt, playedSeconds: playedSeconds)
    }

    /// Licensed with operator keys and no license server (`--license-url` neither at submit nor at renew).
    var isOperatorLicensed: Bool { operatorKeys != nil && licenseURL == nil }
}
