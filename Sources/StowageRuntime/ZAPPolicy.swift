import StowageProtocol
import ZeroMQ

/// The decision on ZAP (RFC 27) requests, without sockets: which handshakes the scheduler accepts.
public enum ZAPPolicy {
    /// The decision on one ZAP request, without sockets (unit-tested).
    public struct Decision: Equatable, Sendable {
        public var reply: [[UInt8]]
        public var accepted: Bool
        public var userID: String
        public var address: String
        /// The Z85 key refused, when a CURVE client was refused.
        public var refusedKey: String?
    }

    /// ZAP 1.0 request: version, request id, domain, address, routing id, mechanism, credentials...
    /// CURVE is accepted when the client key is on the allow-list, with the user id `role:NAME` of its entry (the
    /// scheduler reads it back from every message to know what the key may ask, see ``Caller``); NULL (ipc, in a
    /// 0700 directory) is accepted as `local`; anything else, or a malformed request, is refused.
    public static func answer(_ frames: [[UInt8]], caller: (String) -> Caller?) -> Decision {
        func reply(_ id: [UInt8], _ code: String, _ text: String, _ user: String) -> [[UInt8]] {
            [Array("1.0".utf8), id, Array(code.utf8), Array(text.utf8), Array(user.utf8), []]
        }
        guard frames.count >= 6, frames[0] == Array("1.0".utf8) else {
            let id = frames.count > 1 ? frames[1] : []
            return Decision(
                reply: reply(id, "500", "malformed ZAP request", ""), accepted: false, userID: "",
                address: "")
        }
        let id = frames[1], address = String(decoding: frames[3], as: UTF8.self)
        let mechanism = String(decoding: frames[5], as: UTF8.self)
        switch mechanism {
        case "CURVE":
            guard frames.count >= 7, let key = Curve.encode(frames[6]) else {
                return Decision(
                    reply: reply(id, "400", "no client key", ""), accepted: false, userID: "",
                    address: address)
            }
            if let known = caller(key) {
                let user = known.zapUserID
                return Decision(reply: reply(id, "200", "OK", user), accepted: true, userID: user, address: address)
            }
            return Decision(
                reply: reply(id, "400", "key not allowed", ""), accepted: false, userID: "",
                address: address, refusedKey: key)
        case "NULL":
            return Decision(reply: reply(id, "200", "OK", "local"), accepted: true, userID: "local", address: address)
        default:
            return Decision(
                reply: reply(id, "400", "mechanism \(mechanism) not accepted", ""), accepted: false,
                userID: "", address: address)
        }
    }
}
