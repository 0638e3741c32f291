import Logging
import StowageProtocol
import StowageSchedulerCore

/// What each CURVE key may ask (#29): the ZAP handler names the caller of every tcp connection (`role:NAME`, from
/// the allow-list folder its key lies in); ``AccessPolicy`` decides, the gate enforces it for the loop and logs
/// refusals with the key's name, at most once a minute per key (a refused caller may insist).
struct AccessGate {
    /// What the loop does with a message.
    enum Admission {
        /// From this caller, whose role may send the command.
        case admitted(Caller)
        /// Refused: a request is answered with `reply` (`forbidden`); anything else is dropped (`reply` nil).
        case refused(reply: ClientReply?)
    }

    static let roleHint =
        "a key's role is the folder of its .pub file on the scheduler's allow-list: keys/allowed/worker, "
        + "keys/allowed/gateway or keys/allowed/operator; use an operator's key (stowctl) for this"

    private let logger: Logger
    private var refusals = RateLimitedLog(interval: 60)

    init(logger: Logger) { self.logger = logger }

    /// The caller of a message from the peer whose ZAP user id is `userID` (nil over ipc), when its role may send
    /// this command.
    mutating func admit(_ envelope: Envelope, userID: String?, now: Double) -> Admission {
        let caller = Caller(zapUserID: userID)
        if let caller, AccessPolicy.allows(caller.role, command: envelope.command) { return .admitted(caller) }
        let who = caller?.description ?? "an unknown user id '\(String((userID ?? "").prefix(80)))'"
        let message =
            caller.map {
                "the \($0.role.rawValue) key \($0.name) may not send \(envelope.command.rawValue) messages"
                    + " (\(Self.roleHint))"
            } ?? "this connection's CURVE user id is not one the scheduler gave; reconnect"
        noteForbidden(who: who, what: envelope.command.rawValue, now: now)
        guard envelope.command == .request, let request = try? FrameCodec.body(ClientRequest.self, from: envelope)
        else { return .refused(reply: nil) }
        return .refused(
            reply: ClientReply(
                requestID: request.requestID, result: .error(TitleError(code: .forbidden, message: message))))
    }

    /// Throws `forbidden` when the caller's role may not ask for this operation.
    mutating func authorize(_ operation: ClientOperation, by caller: Caller, now: Double) throws {
        guard !AccessPolicy.allows(caller.role, operation: operation) else { return }
        let name = AccessPolicy.name(of: operation)
        noteForbidden(who: caller.description, what: name, now: now)
        throw TitleError(
            code: .forbidden,
            message: "the \(caller.role.rawValue) key \(caller.name) may not ask for \(name) (\(Self.roleHint))")
    }

    private mutating func noteForbidden(who: String, what: String, now: Double) {
        guard refusals.shouldLog(who, now: now) else { return }
        logger.warning(
            "refused a request its key's role does not allow", metadata: ["caller": "\(who)", "asked": "\(what)"])
    }
}
