import Foundation
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import ZeroMQ

/// What each CURVE key may ask (#29): the ZAP handler names the caller of every tcp connection (`role:NAME`, from
/// the allow-list folder its key lies in); ``AccessPolicy`` decides, here it is enforced and refusals are logged
/// with the key's name.
extension SchedulerService {
    /// The caller of a message when its role may send this command; nil when the message is refused (a request
    /// is answered `forbidden`, anything else is dropped), logged at most once a minute per key.
    func admit(_ envelope: Envelope, from identity: [UInt8], userID: String?) -> Caller? {
        let caller = Caller(zapUserID: userID)
        if let caller, AccessPolicy.allows(caller.role, command: envelope.command) { return caller }
        let who = caller?.description ?? "an unknown user id '\(String((userID ?? "").prefix(80)))'"
        let message =
            caller.map {
                "the \($0.role.rawValue) key \($0.name) may not send \(envelope.command.rawValue) messages"
                    + " (\(Self.roleHint))"
            } ?? "this connection's CURVE user id is not one the scheduler gave; reconnect"
        noteForbidden(who: who, what: envelope.command.rawValue)
        if envelope.command == .request, let request = try? FrameCodec.body(ClientRequest.self, from: envelope) {
            let refusal = ClientReply(
                requestID: request.requestID, result: .error(TitleError(code: .forbidden, message: message)))
            send(identity, FrameCodec.encode(.reply, refusal))
        }
        return nil
    }

    /// Throws `forbidden` when the caller's role may not ask for this operation.
    func authorize(_ operation: ClientOperation, by caller: Caller) throws {
        guard !AccessPolicy.allows(caller.role, operation: operation) else { return }
        let name = AccessPolicy.name(of: operation)
        noteForbidden(who: caller.description, what: name)
        throw TitleError(
            code: .forbidden,
            message: "the \(caller.role.rawValue) key \(caller.name) may not ask for \(name) (\(Self.roleHint))")
    }

    static let roleHint =
        "a key's role is the folder of its .pub file on the scheduler's allow-list: keys/allowed/worker, "
        + "keys/allowed/gateway or keys/allowed/operator; use an operator's key (stowctl) for this"

    private func noteForbidden(who: String, what: String) {
        guard memory.refusals.shouldLog(who, now: clock.monotonic()) else { return }
        logger.warning(
            "refused a request its key's role does not allow", metadata: ["caller": "\(who)", "asked": "\(what)"])
    }
}
