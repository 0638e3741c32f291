import ArgumentParser
import Foundation
import StowageProcess
import StowageProtocol
import StowageRuntime
import StowageSchedulerService

/// `--min-body-rate`, `--body-rate-window`: how slow another party's answer may be (a peer box's gateway, the
/// `--catalog` URL, a `--notify` receiver) before it is cut (docs/several-hosts.md, catalogue.md, notifications.md).
struct PaceFlags: ParsableArguments {
    @Option(
        name: .customLong("min-body-rate"),
        help: ArgumentHelp(
            """
            The least bytes per second a peer's, the catalogue's or a notification receiver's answer must come at, \
            averaged over --body-rate-window: bytes/s or 4K (binary; default 4096); a slower one is cut and \
            retried with backoff. [env: STOWAGE_MIN_BODY_RATE]
            """, valueName: "rate"), transform: ByteRate.parsing)
    var minRate: ByteRate?
    @Option(
        name: .customLong("body-rate-window"),
        help: ArgumentHelp(
            "The window --min-body-rate is averaged over, 1s to 1h (default 30s). [env: STOWAGE_BODY_RATE_WINDOW]",
            valueName: "duration"), transform: TimeSpan.parsing)
    var window: TimeSpan?

    /// Both from their flags, else their `STOWAGE_` variables; a rate below 1 byte/s or a window outside 1s…1h stops
    /// the start naming the flag or the variable.
    mutating func validate() throws {
        minRate = try EnvironmentRule.resolve(minRate, "min-body-rate") {
            $0.bytesPerSecond >= 1 ? nil : "must be at least 1 byte per second"
        }
        window = try EnvironmentRule.resolve(window, "body-rate-window") {
            (1...3_600).contains($0.seconds) ? nil : "must be from 1s to 1h"
        }
    }

    /// `options.answerPace` with what was given.
    func apply(to options: inout SchedulerService.Options) {
        if let minRate { options.answerPace.minRate = Int(minRate.bytesPerSecond) }
        if let window { options.answerPace.window = window.seconds }
    }
}
