/// What a CURVE key may do on the scheduler, from the folder its public key lies in on the allow-list
/// (`keys/allowed/<role>/NAME.pub`; a key directly in `keys/allowed/` is an operator's, as before roles).
public enum CallerRole: String, Sendable, CaseIterable, Codable {
    /// A worker's key: worker messages only (register, heartbeat, results, progress, bye).
    case worker
    /// The LAN gateway's key: it faces the venue's devices, so it may read titles, check device credentials
    /// and ask for what a device's play needs, nothing that changes the library or its devices.
    case gateway
    /// An operator's key (stowctl): everything.
    case `operator`
}

/// Who sent a message to the scheduler: a role and the name of its key (the `.pub` file's name), as the ZAP
/// handler tells libzmq in the connection's user id (`role:NAME`), which the scheduler reads back from every
/// message. Over ipc (no CURVE) the caller is the local owner, an operator.
public struct Caller: Sendable, Equatable, CustomStringConvertible {
    public var role: CallerRole
    public var name: String

    public init(role: CallerRole, name: String) {
        self.role = role
        self.name = name
    }

    /// The owner of the ipc socket (it lives in a 0700 directory): what a connection without CURVE is.
    public static let local = Caller(role: .operator, name: "local")

    /// The ZAP user id for this caller: `role:NAME`.
    public var zapUserID: String { "\(role.rawValue):\(name)" }

    /// Reads a ZAP user id back. An absent or empty one (no ZAP on the connection: ipc) or `local` is the local
    /// owner; `role:NAME` is that role; anything else is nil, which the scheduler treats as a caller that may do
    /// nothing (a user id it did not write cannot be trusted with a role).
    public init?(zapUserID: String?) {
        guard let text = zapUserID, !text.isEmpty, text != "local" else {
            self = .local
            return
        }
        guard let colon = text.firstIndex(of: ":"), let role = CallerRole(rawValue: String(text[..<colon])) else {
            return nil
        }
        let name = String(text[text.index(after: colon)...])
        guard !name.isEmpty else { return nil }
        self.init(role: role, name: name)
    }

    public var description: String { zapUserID }
}

/// Which messages each role may send to the scheduler (a pure decision; the scheduler answers a refused request
/// with the error `forbidden` and drops a refused worker message).
public enum AccessPolicy {
    /// Whether `role` may send a message with this command (worker messages, or client requests, whose operation
    /// is then checked by ``allows(_:operation:)``).
    public static func allows(_ role: CallerRole, command: Command) -> Bool {
        switch command {
        case .register, .heartbeat, .result, .progress, .bye:
            return role == .worker || role == .operator
        case .request:
            return role == .gateway || role == .operator
        case .registered, .reregister, .task, .cancelTask, .limits, .reply, .event:
            return false  // the scheduler's own messages: nobody sends them to it
        }
    }

    /// Whether `role` may ask for this operation.
    public static func allows(_ role: CallerRole, operation: ClientOperation) -> Bool {
        switch role {
        case .operator: return true
        case .worker: return false
        case .gateway: return gatewayMay(operation)
        }
    }

    /// The gateway reads titles (and their manifests, for peer boxes), checks device credentials and serves plays
    /// (authorise, keys, play time, license state, live events), and redeems pairing codes. Adding (with a pairing
    /// code or not), revoking or signing for devices, changing titles, limits or the store, and the pipeline's
    /// internals are for operators.
    private static func gatewayMay(_ operation: ClientOperation) -> Bool {
        switch operation {
        case .status, .list, .lookup, .bookmarks, .authenticate, .playable, .play, .playOn, .key, .played,
            .license, .subscribe, .unsubscribe, .peerManifest, .pairRedeem, .fetchScope:
            return true
        case .submit, .cancel, .workers, .pause, .resume, .delete, .stop, .limits, .renew, .bookmarkAdd,
            .bookmarkRemove, .verify, .gc, .stats, .deviceAdd, .devices, .deviceRevoke, .deviceSign, .devicePair,
            .catalogApply, .catalogStatus, .notifyStatus, .boxKey, .exportTitle, .importBundle, .bundleJob, .pin,
            .evictable:
            return false
        }
    }

    /// A short name of the operation (for the refusal's message and the log), never its arguments.
    public static func name(of operation: ClientOperation) -> String {
        // A case with values mirrors as one child labelled with the case's name; one without prints as its name.
        Mirror(reflecting: operation).children.first?.label ?? "\(operation)"
    }
}
