import Foundation
import StowageCatalog
import StowageProtocol
import StowageRuntime
import StowageStore

/// Convergence: ``CatalogReconciler``'s effects carried out, a slice a pass (submits, swaps of an id to a new copy,
/// removals scheduled and done), through the desk.
extension CatalogComponent {
    /// One convergence pass: the reconciler's effects carried out (at most ``sliceEffects`` of them, for at most
    /// ``sliceSeconds``; the next loop turn goes on, ``unfinished``), the book stored when it changed.
    func reconcile() {
        unfinished = false
        guard book.catalog != nil || !book.members.isEmpty else { return }
        let before = book
        let started = context.clock.monotonic()
        do {
            let facts = try self.facts()
            book.keepOnly(tokens: Set(facts.states.keys))
            var current = facts
            current.members = book.members
            let effects = CatalogReconciler.reconcile(current)
            for (done, effect) in effects.enumerated() {
                try carryOut(effect)
                if done + 1 < effects.count,
                    done + 1 >= Self.sliceEffects || context.clock.monotonic() - started >= Self.sliceSeconds
                {
                    unfinished = true
                    break
                }
            }
            if book != before { try save() }
        } catch {
            context.logger.error("catalogue pass failed", metadata: ["error": "\(error)"])
        }
    }

    private func facts() throws -> CatalogReconciler.Facts {
        let titles = try storedTitles()
        var states: [String: TitleState] = [:]
        for member in book.members {
            if let title = titles.byToken[member.token] { states[member.token] = title.state }
        }
        // Just after a start a play under way has not reported yet: every member counts as played until it could.
        let playing = plays.playing(now: context.clock.monotonic()) ?? Set(book.members.map(\.token))
        return CatalogReconciler.Facts(
            catalog: book.catalog, members: book.members, states: states, operatorIDs: titles.operatorIDs,
            playing: playing, now: context.clock.now(), grace: options.grace)
    }

    /// Every title by token, and the listed ids held by titles the catalogue did not add: one read of the store
    /// per pass, not one per entry.
    func storedTitles() throws -> (byToken: [String: TitleRecord], operatorIDs: Set<String>) {
        let ours = Set(book.members.map(\.token))
        let listed = Set((book.catalog?.titles ?? []).map(\.id))
        var byToken: [String: TitleRecord] = [:]
        var ids = Set<String>()
        for title in try context.store.titles(state: nil) {
            byToken[title.token] = title
            if let id = title.externalID, listed.contains(id), !ours.contains(title.token) { ids.insert(id) }
        }
        return (byToken, ids)
    }

    private func carryOut(_ effect: CatalogReconciler.Effect) throws {
        switch effect {
        case .submit(let entry), .submitReplacement(let entry):
            let first = effect == .submit(entry)
            do {
                let token = try context.desk.submit(request(for: entry, withID: first), reuse: false)
                book.added(
                    CatalogMember(
                        token: token, id: entry.id, url: entry.url, selection: entry.selection ?? Selection(),
                        range: entry.clipRange, role: first ? .current : .incoming))
                try context.desk.record(
                    TitleHappening(
                        token, kind: "catalog",
                        detail: first
                            ? "added by catalogue entry \(entry.id)" : "new copy of catalogue entry \(entry.id)"))
                if let refusal = peerRefusal(entry) {
                    try context.desk.record(TitleHappening(token, kind: "peer", detail: "from the origin: \(refusal)"))
                }
            } catch {
                if refusalLog.shouldLog("catalog-submit:\(entry.id)", now: context.clock.monotonic()) {
                    context.logger.warning(
                        "catalogue entry cannot be submitted", metadata: ["id": "\(entry.id)", "error": "\(error)"])
                }
            }
        case .swap(let id, let old, let new):
            try moveID(id, from: old, to: new)
            book.record(effect, now: context.clock.now())
        case .scheduleRemoval(let token, let at):
            book.record(effect, now: context.clock.now())
            try context.desk.record(
                TitleHappening(token, kind: "catalog", detail: "to be removed at \(iso8601(at) ?? "?")"))
        case .keep:
            book.record(effect, now: context.clock.now())
        case .delete(let token):
            context.logger.info("deleting a title the catalogue no longer lists", metadata: ["token": "\(token)"])
            try context.desk.delete(token)
            book.record(effect, now: context.clock.now())
        }
    }

    /// The swap: the id (what the gateway's `/titles/<id>/` and `/resolve?id=` answer) moves to the new copy in
    /// one transaction; devices playing the old copy by token keep it until it is deleted.
    private func moveID(_ id: String, from old: String, to new: String) throws {
        let store = context.store
        var failure: (any Error)?
        try store.batch {
            do {
                if var previous = try store.title(old) {
                    previous.externalID = nil
                    try store.update(previous)
                }
                if var next = try store.title(new) {
                    next.externalID = id
                    try store.update(next)
                }
            } catch {
                failure = error
                // The batch may commit what went before the failure: the id goes back to the old copy, so it
                // keeps serving the entry and the next pass tries the swap again.
                if var previous = try? store.title(old), previous.externalID == nil {
                    previous.externalID = id
                    try? store.update(previous)
                }
            }
        }
        if let failure {
            context.logger.error("catalogue swap failed", metadata: ["id": "\(id)", "error": "\(failure)"])
            throw failure
        }
        context.logger.info(
            "catalogue entry swapped to its new copy", metadata: ["id": "\(id)", "old": "\(old)", "new": "\(new)"])
        try context.desk.record(
            TitleHappening(
                new, kind: "catalog", detail: "now serves catalogue entry \(id) (replaces \(old))", published: "state"))
    }

    /// The submit for a catalogue entry: filled from its first source's peer (as `submit --from-peer`, its `url`
    /// the origin's source) when this box holds that credential for that peer (``PeerCredential``); else from the
    /// origin, and why is logged and kept as the title's event (``peerRefusal(_:)``).
    func request(for entry: CatalogEntry, withID: Bool) -> SubmitRequest {
        var request = entry.submitRequest(withID: withID)
        guard let source = entry.sources?.first else { return request }
        switch PeerCredential.read(source, home: context.home.root) {
        case .success(let secret):
            request.peer = PeerSource(url: source.peer, id: source.id ?? entry.id, secret: secret)
        case .failure(let refusal):
            if refusalLog.shouldLog("catalog-peer:\(entry.id)", now: context.clock.monotonic()) {
                context.logger.warning(
                    "catalogue source not used; the title comes from its origin",
                    metadata: ["id": "\(entry.id)", "peer": "\(source.peer)", "reason": "\(refusal.message)"])
            }
        }
        return request
    }

    /// Why a catalogue entry's peer source was not used (nil: it was, or it names none), for the title's events.
    func peerRefusal(_ entry: CatalogEntry) -> String? {
        guard let source = entry.sources?.first,
            case .failure(let refusal) = PeerCredential.read(source, home: context.home.root)
        else { return nil }
        return refusal.message
    }
}
