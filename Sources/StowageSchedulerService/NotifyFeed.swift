import Crypto
import Foundation
import StowageProtocol
import Synchronization

/// Notifications handed from the scheduler's loop to the delivery task, and what became of them handed back:
/// the loop alone reads and writes the outbox; the task alone talks HTTP.
public final class NotifyFeed: Sendable {
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

    private let outgoing = Mutex<[Parcel]>([])
    private let outcomes = Mutex<[Outcome]>([])

    public init() {}

    /// Hands parcels to the delivery task (loop).
    public func hand(_ parcels: [Parcel]) { outgoing.withLock { $0.append(contentsOf: parcels) } }

    /// What was handed since the last call (delivery task).
    public func takeParcels() -> [Parcel] {
        outgoing.withLock { p in
            defer { p.removeAll() }
            return p
        }
    }

    /// Reports what became of one parcel (delivery task).
    public func report(_ outcome: Outcome) { outcomes.withLock { $0.append(outcome) } }

    /// Outcomes since the last call (loop).
    public func takeOutcomes() -> [Outcome] {
        outcomes.withLock { o in
            defer { o.removeAll() }
            return o
        }
    }
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
