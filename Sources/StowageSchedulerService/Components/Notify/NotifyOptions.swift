import Foundation
import StowageProtocol
import StowageRuntime
import StowageStore

/// `stowage-scheduler --notify`, `--notify-secret`, `--notify-expiry-ahead` (docs/notifications.md).
public struct NotifyOptions: Sendable {
    /// The receivers' http(s) URLs; none: no event is stored or sent.
    public var receivers: [String] = []
    /// The HMAC-SHA256 key of `X-Stowage-Signature` (nil: events go unsigned, as the start logged).
    public var secret: Data?
    /// A license ending within this many seconds is announced once (`license-expiring`).
    public var expiryAhead: Double = 24 * 3600
    /// At most this many events wait per receiver; past it the oldest are dropped with a warning.
    public var maxWaiting = 10_000
    /// Where events go to the delivery service and its outcomes come back (set with `receivers`).
    public var feed: NotifyFeed?

    public init() {}

    /// Whether `text` is a URL a notification may be POSTed to (http or https with a host).
    public static func isReceiverURL(_ text: String) -> Bool {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
        else { return false }
        return true
    }

    /// One event's rows, one per receiver, sharing one id and one body.
    func records(
        kind: NotifyEvent.Kind, subject: String, status: TitleStatus?, detail: String?, wallNow: Double
    ) -> [NotifyRecord] {
        guard !receivers.isEmpty else { return [] }
        let event = NotifyEvent(
            id: UUID().uuidString.lowercased(), kind: kind, at: iso8601(wallNow) ?? "", token: status?.token,
            detail: detail, status: status)
        let body = event.encoded()
        return receivers.map {
            NotifyRecord(
                eventID: event.id, receiver: $0, subject: subject, kind: kind.rawValue, body: body, createdAt: wallNow)
        }
    }
}

/// The JSON body of a notification (docs/notifications.md).
public struct NotifyEvent: Codable, Sendable, Equatable {
    /// What happened.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case state
        case licenseExpiring = "license-expiring"
        case verificationFailed = "verification-failed"
        case catalogApplied = "catalog-applied"
        case catalogRefused = "catalog-refused"
        case evicted
    }

    /// Stable across retries and restarts: receivers de-duplicate on it.
    public var id: String
    public var kind: Kind
    /// When it happened (ISO 8601, wall clock).
    public var at: String
    /// The title it is about (nil: the box's own event).
    public var token: String?
    /// A line for a person (the move, the refusal, the bad files).
    public var detail: String?
    /// The title's status object as `stowctl status --json` shows it, when the event was stored.
    public var status: TitleStatus?

    /// The body's bytes (keys sorted).
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data()
    }
}
