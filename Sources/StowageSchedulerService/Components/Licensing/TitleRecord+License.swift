import StowageLicensing
import StowageStore

extension TitleRecord {
    /// How much of its license the title has used (plays, first play, play time).
    var licenseUsage: LicenseUsage {
        LicenseUsage(playCount: playCount, firstPlayedAt: firstPlayedAt, playedSeconds: playedSeconds)
    }

    /// Licensed with operator keys and no license server (`--license-url` neither at submit nor at renew).
    var isOperatorLicensed: Bool { operatorKeys != nil && licenseURL == nil }
}
