import ArgumentParser
import Foundation
import StowageProtocol

/// `stowctl notify status`: what waits for each `--notify` receiver (see docs/notifications.md).
struct NotifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Show the notification receivers and what waits for each.",
        subcommands: [NotifyStatus.self])

    struct NotifyStatus: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: """
                Each --notify receiver: how many events wait, the oldest, the last error and when it is tried \
                again, the last delivery.
                """)
        @OptionGroup var connection: ConnectionOptions

        func run() throws { NotifyCommand.show(try connection.request(.notifyStatus), json: connection.json) }
    }

    static func show(_ report: NotifyReport, json: Bool) {
        if json {
            printJSON(report)
            return
        }
        guard !report.receivers.isEmpty else {
            print("no receivers (the scheduler runs without --notify)")
            return
        }
        print("signed: " + (report.signed ? "yes (X-Stowage-Signature)" : "no (no --notify-secret)"))
        for r in report.receivers {
            print("\(URLRedaction.redacted(r.url))")
            print("  waiting:       \(r.waiting)" + (r.oldestWaitingAt.map { ", oldest stored \($0)" } ?? ""))
            if let delivered = r.lastDeliveredAt { print("  last delivery: \(delivered)") }
            if let error = r.lastError { print("  last error:    \(error) (\(r.failures) failures in a row)") }
            if let next = r.nextAttemptAt { print("  next attempt:  \(next)") }
        }
    }
}
