import ArgumentParser
import Foundation
import Logging
import StowageCatalog
import StowageProcess
import StowageProtocol
import StowageRuntime
import StowageSchedulerService

/// `--catalog`, `--catalog-key`, `--catalog-interval`, `--catalog-grace` (see docs/catalogue.md).
struct CatalogFlags: ParsableArguments {
    @Option(
        name: .customLong("catalog"),
        help: ArgumentHelp(
            """
            The catalogue the box converges on: an http(s) URL polled every --catalog-interval (with its detached \
            Ed25519 signature at URL.sig), or a file (FILE.sig beside it). Titles it lists are downloaded, changed \
            ones replaced, removed ones deleted after --catalog-grace. [env: STOWAGE_CATALOG]
            """, valueName: "url|file"))
    var location: String?
    @Option(
        name: .customLong("catalog-key"),
        help: ArgumentHelp(
            """
            An Ed25519 public key file (32 bytes, or their base64 or hex text) a catalogue's signature must match \
            (repeatable). Without one a catalogue is accepted unsigned (logged); a URL catalogue should be signed. \
            [env: STOWAGE_CATALOG_KEY, one]
            """, valueName: "file"))
    var keys: [String] = []
    @Option(
        name: .customLong("catalog-interval"),
        help: ArgumentHelp(
            "How often --catalog is fetched (default 15m). [env: STOWAGE_CATALOG_INTERVAL]", valueName: "duration"),
        transform: TimeSpan.parsing)
    var interval: TimeSpan?
    @Option(
        name: .customLong("catalog-grace"),
        help: ArgumentHelp(
            """
            How long a title stays after it left the catalogue (default 24h); never deleted while played. \
            [env: STOWAGE_CATALOG_GRACE]
            """, valueName: "duration"), transform: TimeSpan.parsing)
    var grace: TimeSpan?

    /// Each from its flag, else its `STOWAGE_` variable. A catalogue that is neither an http(s) URL nor a readable
    /// file, or a key file that holds no key, stops the start naming the flag or the variable (exit 2).
    mutating func validate() throws {
        location = try EnvironmentRule.resolve(location, "catalog") { text in
            OptionChecks.httpURL(text) == nil ? nil : OptionChecks.readableFile(text).map { "not a URL, and \($0)" }
        }
        keys = try EnvironmentRule.resolve(
            list: keys, "catalog-key",
            check: { file in
                if let problem = OptionChecks.readableFile(file) { return problem }
                do {
                    _ = try CatalogSignature.publicKey(from: Data(contentsOf: URL(fileURLWithPath: file)))
                } catch { return "\(error)" }
                return nil
            })
        interval = try EnvironmentRule.resolve(interval, "catalog-interval") {
            $0.seconds > 0 ? nil : "must be longer than 0s"
        }
        grace = try EnvironmentRule.resolve(grace, "catalog-grace")
    }

    /// The scheduler's catalogue options, from the values ``validate()`` checked.
    func options(logger: Logger) throws -> CatalogOptions {
        var options = CatalogOptions()
        options.location = location
        options.gate = try CatalogGate(keyFiles: keys.map { try Data(contentsOf: URL(fileURLWithPath: $0)) })
        if let interval { options.interval = interval.seconds }
        if let grace { options.grace = grace.seconds }
        if let location = options.location {
            options.feed = CatalogFeed()
            if keys.isEmpty {
                logger.warning(
                    "no --catalog-key: the catalogue is accepted unsigned",
                    metadata: ["catalog": "\(URLRedaction.redacted(location))"])
            }
        }
        return options
    }
}
