import ArgumentParser
import Foundation
import StowageProcess
import StowageProtocol
import StowageRuntime
import StowageSchedulerService

/// `--fill-window` and `--bandwidth-schedule`: when titles may fetch and how fast, by the box's local time.
struct FillFlags: ParsableArguments {
    @Option(
        name: .customLong("fill-window"),
        help: ArgumentHelp(
            "Fetch titles only from HH:MM to HH:MM, local time (repeatable, or comma-separated). "
                + "[env: STOWAGE_FILL_WINDOW]",
            discussion: """
                e.g. 01:00-06:00, or 22:00-06:00 across midnight. Outside every window a title waits as suspended \
                (window) with nextWindowAt, and a download under way stops at once and carries on from the bytes on \
                disk when a window opens. A title's own `submit --window` replaces these; `submit --now` and \
                recordings ignore them; license renewals are never held. Local time is the box's time zone (TZ); \
                a clock step moves the windows.
                """,
            valueName: "HH:MM-HH:MM"))
    var fillWindow: [FillSchedule] = []
    @Option(
        name: .customLong("bandwidth-schedule"),
        help: ArgumentHelp(
            "The download cap by local time, e.g. 01:00-06:00=unlimited,*=2M. [env: STOWAGE_BANDWIDTH_SCHEDULE]",
            discussion: """
                Comma-separated WINDOW=RATE entries, the first open window deciding, and *=RATE for any other time \
                (without it: unlimited). RATE is bytes per second like --bandwidth, with an optional binary K, M, G \
                or T (2M = 2097152 bytes/s), or unlimited. A cap set with --bandwidth or `stowctl limits --bandwidth` \
                wins over the schedule until `stowctl limits --reset`.
                """,
            valueName: "SPEC"))
    var bandwidthSchedule: BandwidthSchedule?

    /// Both from their flags, else `STOWAGE_FILL_WINDOW` (comma-separated windows) and `STOWAGE_BANDWIDTH_SCHEDULE`;
    /// a bad value stops the start naming the flag or the variable.
    mutating func validate() throws {
        fillWindow = try EnvironmentRule.resolve(list: fillWindow, "fill-window")
        bandwidthSchedule = try EnvironmentRule.resolve(bandwidthSchedule, "bandwidth-schedule")
    }

    /// The scheduler's options with the windows and schedule.
    func apply(to options: inout SchedulerService.Options) throws {
        if !fillWindow.isEmpty {
            do { options.fillWindow = try FillSchedule(fillWindow.flatMap(\.windows)) } catch {
                throw ValidationError("--fill-window \(error)")
            }
        }
        options.bandwidthSchedule = bandwidthSchedule
    }
}
