import Foundation
import StowageCatalog
import StowageProtocol
import StowageRuntime

/// What arrives: from the fetcher's mailbox (``CatalogFeed``) or from `stowctl catalog apply`, checked by the gate,
/// applied or refused; the box's receivers hear of either (a refusal once, not at every poll that meets it again).
extension CatalogComponent {
    /// What the `--catalog` fetcher brought since the last pass.
    func takeArrivals() {
        guard let feed = options.feed else { return }
        let source = options.location.map { URLRedaction.redacted($0) } ?? "?"
        for arrival in feed.arrivals.take() {
            switch arrival {
            case .document(let bytes, let signature):
                _ = receive(bytes, signature: signature, source: source)
            case .notModified:
                book.lastFetchAt = context.clock.now()
                if book.lastError?.code == .unreachable { book.lastError = nil }
                try? save()
            case .failed(let reason):
                refuse(CatalogRefusal(.unreachable, reason), source: source)
            case .refused(let refusal):
                refuse(refusal, source: source)
            }
        }
    }

    /// Checks a catalogue that arrived and applies it; answers why it was refused (the one in force stays).
    func receive(_ bytes: Data, signature: Data?, source: String) -> CatalogRefusal? {
        let gate = options.gate
        do {
            switch try gate.admit(bytes, signature: signature, inForce: book.inForce) {
            case .unchanged:
                book.confirmed(now: context.clock.now())
            case .apply(let catalog, let digest):
                if !gate.requiresSignature {
                    context.logger.warning(
                        "catalogue accepted unsigned: no --catalog-key is given", metadata: ["source": "\(source)"])
                }
                book.accepted(catalog, digest: digest, source: source, now: context.clock.now())
                announce(
                    .catalogApplied,
                    detail: "version \(catalog.version), \(catalog.titles.count) titles, from \(source)")
                context.logger.info(
                    "catalogue applied",
                    metadata: [
                        "version": "\(catalog.version)", "titles": "\(catalog.titles.count)", "source": "\(source)",
                    ])
            }
            try? save()
            return nil
        } catch {
            refuse(error, source: source)
            return error
        }
    }

    private func refuse(_ refusal: CatalogRefusal, source: String) {
        // The fetcher then forgets its ETag (see ``CatalogFeed``); an unreachable URL sent nothing to forget.
        if refusal.code != .unreachable { options.feed?.refusals.post(refusal) }
        if book.lastError != refusal {
            announce(.catalogRefused, detail: "\(refusal.code.rawValue): \(refusal.message) (from \(source))")
        }
        book.refused(refusal, now: context.clock.now())
        try? save()
        if refusalLog.shouldLog("catalog:\(refusal)", now: context.clock.monotonic()) {
            context.logger.warning(
                "catalogue refused; \(inForce)",
                metadata: ["source": "\(source)", "code": "\(refusal.code.rawValue)", "reason": "\(refusal.message)"])
        }
    }

    /// An event of the box itself (no title: the empty token), for the `--notify` receivers; the store failing here
    /// loses the event, not the catalogue.
    private func announce(_ kind: NotifyEvent.Kind, detail: String) {
        do {
            try context.desk.record(.box(kind, detail: detail))
        } catch {
            context.logger.error("a catalogue notification could not be stored", metadata: ["error": "\(error)"])
        }
    }
}
