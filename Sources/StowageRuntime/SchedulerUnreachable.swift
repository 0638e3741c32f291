import Foundation
import StowageProtocol

/// No scheduler at the endpoint a client was given: nothing listens there (connection refused, or no ipc socket
/// file), or nothing answered in time. Said at once in the first case, so an operator who forgot to start the
/// pipeline (or named another home) learns it without waiting for the request's timeout. Code `network`.
public struct SchedulerUnreachable: Error, CustomStringConvertible, Sendable, CodedError {
    public let endpoint: String
    /// What was found there, with what to do next.
    public let message: String
    public var code: ErrorCode { .network }
    public var description: String { message }

    /// Nothing listens at `endpoint`: the message names what was missing (the home, its socket) and what to do.
    public static func nothingListening(at endpoint: String) -> SchedulerUnreachable {
        let start = "start it with Deploy/start.sh (or stowage-scheduler --home DIR)"
        guard endpoint.hasPrefix("ipc://") else {
            return SchedulerUnreachable(
                endpoint: endpoint,
                message: "no scheduler at \(endpoint) (connection refused): is stowage-scheduler running there with "
                    + "--bind \(endpoint)? Check --scheduler / STOWAGE_SCHEDULER")
        }
        let socket = URL(fileURLWithPath: String(endpoint.dropFirst("ipc://".count)))
        let home = socket.deletingLastPathComponent().deletingLastPathComponent().path
        let fm = FileManager.default
        let message: String
        if !fm.fileExists(atPath: home) {
            message =
                "no Stowage home at \(home), so no scheduler: give the box's --home or STOWAGE_HOME, or \(start)"
        } else if !fm.fileExists(atPath: socket.path) {
            message =
                "no scheduler is running for the home \(home) (no socket \(socket.path)): \(start), or give "
                + "--home / STOWAGE_HOME / --scheduler of a running one"
        } else {
            message =
                "no scheduler answers at \(endpoint) (connection refused: it stopped and left its socket): \(start)"
        }
        return SchedulerUnreachable(endpoint: endpoint, message: message)
    }

    /// Connected, but no answer within `seconds`: a scheduler that is there but busy, or not a scheduler.
    public static func noAnswer(from endpoint: String, within seconds: Double) -> SchedulerUnreachable {
        SchedulerUnreachable(
            endpoint: endpoint,
            message: "no answer from the scheduler at \(endpoint) within \(Int(seconds)) s: it is connected but "
                + "busy or stuck; see its log (\u{24}STOWAGE_HOME/logs/scheduler.log)")
    }

    /// Several endpoints, and none led in a whole round: what each one said, and what to do.
    public static func noLeader(_ said: [LeaderSearch.Said]) -> SchedulerUnreachable {
        let each = said.map { "\($0.endpoint): \($0.what)" }.joined(separator: "; ")
        return SchedulerUnreachable(
            endpoint: said.map(\.endpoint).joined(separator: ","),
            message: "no scheduler leads among the endpoints given (\(each)); a takeover takes up to the "
                + "schedulers' --leader-lease (10 s by default): try again, else check --scheduler / "
                + "STOWAGE_SCHEDULER and the schedulers' logs")
    }

    /// A request that reached the scheduler at `endpoint` and got no answer within `seconds`, and that is not sent
    /// again to another scheduler because applying it twice would change something: it may have been applied.
    public static func outcomeUnknown(from endpoint: String, within seconds: Double) -> SchedulerUnreachable {
        SchedulerUnreachable(
            endpoint: endpoint,
            message: "no answer from the scheduler at \(endpoint) within \(Int(seconds.rounded())) s, and the request "
                + "may have been applied there, so it was not sent to another scheduler: check with `stowctl "
                + "status` or `list` before repeating it")
    }
}
