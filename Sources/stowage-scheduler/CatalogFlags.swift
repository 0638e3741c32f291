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
        help: """
            The catalogue the box converges on: an http(s) URL polled every --catalog-interval (with its detached \
            Ed25519 signature at URL.sig), or a file (FILE.sig beside it). Titles it lists are downloaded, changed \
            ones replaced, removed ones deleted after --catalog-grace.
            """)
    var location: String?
    @Option(
        name: .customLong("catalog-key"),
        help: """
            An Ed25519 public key file (32 bytes, or their base64 or hex text) a catalogue's signature must match \
            (repeatable). Without one a catalogue is accepted unsigned (logged); a URL catalogue should be signed.
            """)
    var keys: [String] = []
    @Option(name: .customLong("catalog-interval"), help: "How often --catalog is fetched (default 15m).")
    var interval: String?
    @Option(
        name: .customLong("catalog-grace"),
        help: "How long a title stays after it left the catalogue (default 24h); never deleted while played.")
    var grace: String?

    /// The scheduler's catalogue options; a key file that holds no key stops the start (exit 2).
    func options(logger: Logger) throws -> CatalogOptions {
        var options = CatalogOptions()
        options.location = location ?? environmentOption("catalog")
        let keyFiles = keys.isEmpty ? (environmentOption("catalog-key").map { [$0] } ?? []) : keys
        for file in keyFiles {
            do {
                _ = try CatalogSignature.publicKey(from: Data(contentsOf: URL(fileURLWithPath: file)))
            } catch {
                throw ValidationError("--catalog-key \(file): \(error)")
            }
        }
        options.gate = try CatalogGate(keyFiles: keyFiles.map { try Data(contentsOf: URL(fileURLWithPath: $0)) })
        if let text = interval ?? environmentOption("catalog-interval") {
            guard let seconds = parseDuration(text), seconds > 0 else {
                throw ValidationError("--catalog-interval '\(text)' is not a duration like 90s, 15m or 24h")
            }
            options.interval = seconds
        }
        if let text = grace ?? environmentOption("catalog-grace") {
            guard let seconds = parseDuration(text), seconds >= 0 else {
                throw ValidationError("--catalog-grace '\(text)' is not a duration like 90s, 15m or 24h")
            }
            options.grace = seconds
        }
        if let location = options.location {
            options.feed = CatalogFeed()
            if keyFiles.isEmpty {
                logger.warning(
                    "no --catalog-key: the catalogue is accepted unsigned",
                    metadata: ["catalog": "\(URLRedaction.redacted(location))"])
            }
        }
        return options
    }
}
