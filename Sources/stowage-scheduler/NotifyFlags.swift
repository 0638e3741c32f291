import ArgumentParser
import Foundation
import Logging
import StowageProcess
import StowageRuntime
import StowageSchedulerService

/// `--notify`, `--notify-secret`, `--notify-expiry-ahead` (see docs/notifications.md).
struct NotifyFlags: ParsableArguments {
    @Option(
        name: .customLong("notify"),
        help: """
            An http(s) URL each event is POSTed to as JSON (repeatable): state moves, licenses about to expire, \
            verification failures, catalogues applied or refused, evictions. Stored first, retried with backoff \
            while the receiver is down, delivered at least once and in order per title.
            """)
    var receivers: [String] = []
    @Option(
        name: .customLong("notify-secret"),
        help: """
            A file whose bytes (a trailing newline dropped) are the HMAC-SHA256 key of each event's \
            X-Stowage-Signature header (sha256=<hex>). Without it events go unsigned (logged at start).
            """)
    var secret: String?
    @Option(
        name: .customLong("notify-expiry-ahead"),
        help: "Announce a license this long before it expires (default 24h).")
    var expiryAhead: String?

    /// The scheduler's notification options; a URL that is not http(s) or an unreadable secret stops the start.
    func options(logger: Logger) throws -> NotifyOptions {
        var options = NotifyOptions()
        // STOWAGE_NOTIFY: several URLs separated by spaces.
        options.receivers =
            receivers.isEmpty
            ? (environmentOption("notify").map { $0.split(whereSeparator: \.isWhitespace).map(String.init) } ?? [])
            : receivers
        for url in options.receivers where !NotifyOptions.isReceiverURL(url) {
            throw ValidationError("--notify '\(url)' is not an http(s) URL")
        }
        if let file = secret ?? environmentOption("notify-secret") {
            guard var bytes = try? Data(contentsOf: URL(fileURLWithPath: file)) else {
                throw ValidationError("--notify-secret \(file) cannot be read")
            }
            while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
            guard !bytes.isEmpty else { throw ValidationError("--notify-secret \(file) is empty") }
            options.secret = bytes
        }
        if let text = expiryAhead ?? environmentOption("notify-expiry-ahead") {
            guard let seconds = parseDuration(text), seconds > 0 else {
                throw ValidationError("--notify-expiry-ahead '\(text)' is not a duration like 90s, 15m or 24h")
            }
            options.expiryAhead = seconds
        }
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
