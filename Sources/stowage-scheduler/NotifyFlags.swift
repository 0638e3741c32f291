import ArgumentParser
import Foundation
import Logging
import StowageProcess
import StowageProtocol
import StowageRuntime
import StowageSchedulerService

/// `--notify`, `--notify-secret`, `--notify-expiry-ahead` (see docs/notifications.md).
struct NotifyFlags: ParsableArguments {
    @Option(
        name: .customLong("notify"),
        help: ArgumentHelp(
            """
            An http(s) URL each event is POSTed to as JSON (repeatable): state moves, licenses about to expire, \
            verification failures, catalogues applied or refused, evictions. Stored first, retried with backoff \
            while the receiver is down, delivered at least once and in order per title. \
            [env: STOWAGE_NOTIFY, separated by spaces]
            """, valueName: "url"))
    var receivers: [String] = []
    @Option(
        name: .customLong("notify-secret"),
        help: ArgumentHelp(
            """
            A file whose bytes (a trailing newline dropped) are the HMAC-SHA256 key of each event's \
            X-Stowage-Signature header (sha256=<hex>). Without it events go unsigned (logged at start). \
            [env: STOWAGE_NOTIFY_SECRET]
            """, valueName: "file"))
    var secret: String?
    @Option(
        name: .customLong("notify-expiry-ahead"),
        help: ArgumentHelp(
            "Announce a license this long before it expires (default 24h). [env: STOWAGE_NOTIFY_EXPIRY_AHEAD]",
            valueName: "duration"), transform: TimeSpan.parsing)
    var expiryAhead: TimeSpan?

    /// Each from its flag, else its `STOWAGE_` variable; a URL that is not http(s), an unreadable or empty secret or a
    /// bad duration stops the start naming the flag or the variable.
    mutating func validate() throws {
        receivers = try EnvironmentRule.resolve(list: receivers, "notify", separator: \.isWhitespace) {
            NotifyOptions.isReceiverURL($0) ? nil : "is not an http(s) URL"
        }
        secret = try EnvironmentRule.resolve(secret, "notify-secret") { file in
            if let problem = OptionChecks.readableFile(file) { return problem }
            return Self.readSecret(file) == nil ? "is empty" : nil
        }
        expiryAhead = try EnvironmentRule.resolve(expiryAhead, "notify-expiry-ahead") {
            $0.seconds > 0 ? nil : "must be longer than 0s"
        }
    }

    /// The secret's bytes, a trailing newline dropped; nil if it cannot be read or holds nothing.
    static func readSecret(_ file: String) -> Data? {
        guard var bytes = try? Data(contentsOf: URL(fileURLWithPath: file)) else { return nil }
        while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
        return bytes.isEmpty ? nil : bytes
    }

    /// The scheduler's notification options, from the values ``validate()`` checked.
    func options(logger: Logger) throws -> NotifyOptions {
        var options = NotifyOptions()
        options.receivers = receivers
        if let secret {
            guard let bytes = Self.readSecret(secret) else {
                throw ValidationError("--notify-secret \(secret) cannot be read")
            }
            options.secret = bytes
        }
        if let expiryAhead { options.expiryAhead = expiryAhead.seconds }
        if !options.receivers.isEmpty {
            options.feed = NotifyFeed()
            if options.secret == nil {
                logger.warning(
                    "no --notify-secret: notifications are sent unsigned",
                    metadata: ["receivers": "\(options.receivers.count)"])
            }
        }
        return options
    }
}
