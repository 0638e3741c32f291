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
        help: """
            The least bytes per second a peer's, the catalogue's or a notification receiver's answer must come at, \
            averaged over --body-rate-window (default 4096); a slower one is cut and retried with backoff.
            """)
    var minRate: Int?
    @Option(
        name: .customLong("body-rate-window"),
        help: "The window --min-body-rate is averaged over (90s, 15m; default 30s).")
    var window: String?

    /// `options.answerPace` with what was given; a rate below 1 or a window that is no duration stops the start.
    func apply(to options: inout SchedulerService.Options) throws {
        if let text = minRate.map(String.init) ?? environmentOption("min-body-rate") {
            guard let rate = Int(text), rate >= 1 else {
                throw ValidationError("--min-body-rate '\(text)' is not a number of bytes per second (1 or more)")
            }
            options.answerPace.minRate = rate
        }
        if let text = window ?? environmentOption("body-rate-window") {
            guard let seconds = parseDuration(text), seconds >= 1, seconds <= 3600 else {
                throw ValidationError("--body-rate-window '\(text)' is not a duration from 1s to 1h, like 30s")
            }
            options.answerPace.window = seconds
        }
    }
}
