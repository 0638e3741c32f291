import Foundation
import StowageProtocol

/// Catalogues as they arrive from `--catalog`, handed from the fetcher (a service of the process's group) to the
/// scheduler's loop, which alone checks and applies them (it holds the keys and writes the store): a pair of
/// mailboxes, one each way.
public struct CatalogFeed: Sendable {
    /// What one fetch or read brought.
    public enum Arrival: Sendable, Equatable {
        /// A catalogue's exact bytes and its detached signature (nil: none beside it).
        case document(Data, signature: Data?)
        /// The URL answered 304 Not Modified.
        case notModified
        /// It could not be fetched or read.
        case failed(String)
        /// It was refused before it was read whole (too large).
        case refused(CatalogRefusal)
    }

    /// Fetcher to loop: what each fetch brought, in order.
    package let arrivals = Mailbox<Arrival>()
    /// Loop to fetcher: the scheduler refused what arrived. The fetcher then forgets its `ETag`, so a document
    /// republished with its signature after a poll caught one without the other is fetched whole again, not
    /// answered 304 forever. Refusals since the fetcher last looked count as one.
    package let refusals = Mailbox<CatalogRefusal>()

    public init() {}
}
