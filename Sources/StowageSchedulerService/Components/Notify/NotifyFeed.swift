import Crypto
import Foundation
import StowageProtocol

/// Notifications handed from the scheduler's loop to the delivery service, and what became of them handed back,
/// as a pair of ``Mailbox``es: the loop alone reads and writes the outbox; the service alone talks HTTP.
public struct NotifyFeed: Sendable {
    /// One event for one receiver.
    public struct Parcel: Sendable, Equatable {
        /// The outbox row.
        public var id: Int64
        public var receiver: String
        /// The exact body and its `X-Stowage-Signature` value (nil: unsigned).
        public var body: Data
        public var signature: String?
    }

    /// What one attempt came to.
    public enum Outcome: Sendable, Equatable {
        /// The receiver answered 2xx.
        case delivered(id: Int64, receiver: String)
        /// It did not (the reason, for `notify status`).
        case failed(id: Int64, receiver: String, error: String)
    }

    /// The loop posts the events to send; the delivery service takes them.
    public let parcels = Mailbox<Parcel>()
    /// The delivery service posts what each attempt came to; the loop takes them.
    public let outcomes = Mailbox<Outcome>()

    public init() {}
}

/// `X-Stowage-Signature: sha256=<hex>`: HMAC-SHA256 under the `--notify-secret` over the body's exact bytes, so a
/// receiver can tell the box's events from anyone's POST.
public enum NotifySignature {
    /// The header's name.
    public static let header = "X-Stowage-Signature"

    /// The header's value for `body` under `secret`.
    public static func value(secret: Data, body: Data) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: secret))
        return "sha256=" + Hex.encode(mac)
    }
}
