import ArgumentParser
import Foundation
import StowageProcess
import StowageProtocol
import StowageRuntime

/// `--purchase`, `--rental`, `--play-duration`, `--play-count`, `--play-time`, `--license-url`.
struct LicenseOptions: ParsableArguments {
    @Flag(help: "Ask for a purchase (never expires).")
    var purchase = false
    @Option(
        help: ArgumentHelp(
            "Ask for a rental of this length (90s, 15m, 24h, 30d); its clock starts at the request.",
            valueName: "duration"), transform: TimeSpan.parsing)
    var rental: TimeSpan?
    @Option(
        name: .customLong("play-duration"),
        help: ArgumentHelp(
            "The license also ends this long after the first play (dual expiry; 90s, 15m, 24h, 30d).",
            valueName: "duration"), transform: TimeSpan.parsing)
    var playDuration: TimeSpan?
    @Option(name: .customLong("play-count"), help: "At most this many plays (0 = unlimited).")
    var playCount: Int?
    @Option(
        name: .customLong("play-time"),
        help: ArgumentHelp("At most this much media played in total (90s, 15m, 24h).", valueName: "duration"),
        transform: TimeSpan.parsing)
    var playTime: TimeSpan?
    @Option(
        name: .customLong("license-url"),
        help: "A JSON license API (identity and authorisation in its query string).")
    var licenseURL: String?

    func validate() throws {
        if purchase && rental != nil { throw ValidationError("--purchase and --rental exclude each other") }
        if let playCount, playCount < 0 { throw ValidationError("--play-count must be 0 or more") }
        if let licenseURL, !(licenseURL.hasPrefix("http://") || licenseURL.hasPrefix("https://")) {
            throw ValidationError("--license-url must be an http(s) URL")
        }
    }

    /// The requested terms, or nil when no license option was given.
    var terms: RequestedTerms? {
        guard purchase || rental != nil || playDuration != nil || playCount != nil || playTime != nil else {
            return nil
        }
        return RequestedTerms(
            kind: rental != nil ? .rental : (purchase ? .purchase : .none),
            rentalSeconds: rental?.seconds, playDurationSeconds: playDuration?.seconds, playCount: playCount,
            playTimeSeconds: playTime?.seconds)
    }
}
