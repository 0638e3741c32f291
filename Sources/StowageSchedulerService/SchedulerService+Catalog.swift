import Foundation
import Logging
import StowageCatalog
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// The catalogue: what arrives goes through ``CatalogGate`` (signature, form, version), the last good one is
/// stored, and ``CatalogReconciler``'s effects are carried out here. The decisions are theirs; this file only
/// writes, submits and deletes.
extension SchedulerService {
    static let catalogSetting = "catalog"

    /// Start-up: the stored catalogue (so a restart without network still knows it).
    func loadCatalog() {
        guard let text = try? store.setting(Self.catalogSetting) else { return }
        do {
            memory.catalog = try JSONDecoder().decode(CatalogBook.self, from: Data(text.utf8))
            logger.info(
                "catalogue in force",
                metadata: [
                    "version": "\(memory.catalog.catalog?.version ?? 0)",
                    "source": "\(memory.catalog.source ?? "-")",
                ])
        } catch {
            logger.error("the stored catalogue cannot be read; none is in force", metadata: ["error": "\(error)"])
        }
    }

    private func saveCatalog() throws {
        let data = try JSONEncoder().encode(memory.catalog)
        try store.setSetting(Self.catalogSetting, String(decoding: data, as: UTF8.self))
    }

    /// What the `--catalog` fetcher brought since the last pass.
    func takeCatalogArrivals() {
        guard let feed = options.catalog.feed else { return }
        let source = options.catalog.location.map { URLRedaction.redacted($0) } ?? "?"
        for arrival in feed.take() {
            switch arrival {
            case .document(let bytes, let signature):
                _ = receiveCatalog(bytes, signature: signature, source: source)
            case .notModified:
                memory.catalog.lastFetchAt = clock.now()
                if memory.catalog.lastError?.code == .unreachable { memory.catalog.lastError = nil }
                try? saveCatalog()
            case .failed(let reason):
                refuseCatalog(CatalogRefusal(.unreachable, reason), source: source)
            case .refused(let refusal):
                refuseCatalog(refusal, source: source)
            }
        }
    }

    /// Checks a catalogue that arrived and applies it; answers why it was refused (the one in force stays).
    func receiveCatalog(_ bytes: Data, signature: Data?, source: String) -> CatalogRefusal? {
        let gate = options.catalog.gate
        do {
            switch try gate.admit(bytes, signature: signature, inForce: memory.catalog.inForce) {
            case .unchanged:
                memory.catalog.confirmed(now: clock.now())
            case .apply(let catalog, let digest):
                if !gate.requiresSignature {
                    logger.warning(
                        "catalogue accepted unsigned: no --catalog-key is given", metadata: ["source": "\(source)"])
                }
                memory.catalog.accepted(catalog, digest: digest, source: source, now: clock.now())
                notifyCatalog(
                    .catalogApplied,
                    detail: "version \(catalog.version), \(catalog.titles.count) titles, from \(source)")
                logger.info(
                    "catalogue applied",
                    metadata: [
                        "version": "\(catalog.version)", "titles": "\(catalog.titles.count)", "source": "\(source)",
                    ])
            }
            try? saveCatalog()
            return nil
        } catch {
            refuseCatalog(error, source: source)
            return error
        }
    }

    private func refuseCatalog(_ refusal: CatalogRefusal, source: String) {
        if refusal.code != .unreachable { options.catalog.feed?.noteRefused() }
        // Announced once per refusal, not at every poll that meets it again.
        if memory.catalog.lastError != refusal {
            notifyCatalog(.catalogRefused, detail: "\(refusal.code.rawValue): \(refusal.message) (from \(source))")
        }
        memory.catalog.refused(refusal, now: clock.now())
        try? saveCatalog()
        let inForce = memory.catalog.catalog.map { "version \($0.version) stays in force" } ?? "none is in force"
        if memory.refusals.shouldLog("catalog:\(refusal)", now: clock.monotonic()) {
            logger.warning(
                "catalogue refused; \(inForce)",
                metadata: ["source": "\(source)", "code": "\(refusal.code.rawValue)", "reason": "\(refusal.message)"])
        }
    }

    /// The longest one convergence pass carries out effects (each a submit, a swap or a delete writes the store):
    /// a catalogue of many titles is applied in slices of this, one per pass, so the loop answers between them.
    static let catalogSlice = 0.2
    /// The most effects one pass carries out (about 0.25 s of submits in a debug build), whatever the clock says.
    package static let catalogSliceEffects = 100

    /// One convergence pass: the reconciler's effects carried out (at most ``catalogSliceEffects`` of them, for at
    /// most ``catalogSlice`` seconds; the next loop turn goes on, ``SchedulerMemory/catalogUnfinished``), the book
    /// stored when it changed.
    func reconcileCatalog() {
        memory.catalogUnfinished = false
        guard memory.catalog.catalog != nil || !memory.catalog.members.isEmpty else { return }
        let before = memory.catalog
        let started = clock.monotonic()
        do {
            let facts = try catalogFacts()
            memory.catalog.keepOnly(tokens: Set(facts.states.keys))
            var current = facts
            current.members = memory.catalog.members
            let effects = CatalogReconciler.reconcile(current)
            for (done, effect) in effects.enumerated() {
                try carryOut(effect)
                if done + 1 < effects.count,
                    done + 1 >= Self.catalogSliceEffects || clock.monotonic() - started >= Self.catalogSlice
                {
                    memory.catalogUnfinished = true
                    break
                }
            }
            if memory.catalog != before { try saveCatalog() }
        } catch {
            logger.error("catalogue pass failed", metadata: ["error": "\(error)"])
        }
    }

    private func catalogFacts() throws -> CatalogReconciler.Facts {
        let titles = try catalogTitles()
        var states: [String: TitleState] = [:]
        for member in memory.catalog.members {
            if let title = titles.byToken[member.token] { states[member.token] = title.state }
        }
        let now = clock.monotonic()
        memory.plays.begin(now: now)
        // Just after a start a play under way has not reported yet: every member counts as played until it could.
        let playing =
            memory.plays.seesEveryPlay(now: now)
            ? memory.plays.playing(now: now) : Set(memory.catalog.members.map(\.token))
        return CatalogReconciler.Facts(
            catalog: memory.catalog.catalog, members: memory.catalog.members, states: states,
            operatorIDs: titles.operatorIDs, playing: playing, now: clock.now(), grace: options.catalog.grace)
    }

    /// Every title by token, and the listed ids held by titles the catalogue did not add: one read of the store
    /// per pass, not one per entry.
    private func catalogTitles() throws -> (byToken: [String: TitleRecord], operatorIDs: Set<String>) {
        let ours = Set(memory.catalog.members.map(\.token))
        let listed = Set((memory.catalog.catalog?.titles ?? []).map(\.id))
        var byToken: [String: TitleRecord] = [:]
        var ids = Set<String>()
        for title in try store.titles(state: nil) {
            byToken[title.token] = title
            if let id = title.externalID, listed.contains(id), !ours.contains(title.token) { ids.insert(id) }
        }
        return (byToken, ids)
    }

    /// Listed ids held by titles the catalogue did not add.
    private func operatorIDs() throws -> Set<String> { try catalogTitles().operatorIDs }

    private func carryOut(_ effect: CatalogReconciler.Effect) throws {
        switch effect {
        case .submit(let entry), .submitReplacement(let entry):
            let first = effect == .submit(entry)
            do {
                let token = try submitTitle(catalogRequest(entry, withID: first), reuse: false)
                memory.catalog.added(
                    CatalogMember(
                        token: token, id: entry.id, url: entry.url, selection: entry.selection ?? Selection(),
                        role: first ? .current : .incoming))
                try record(
                    TitleHappening(
                        token, kind: "catalog",
                        detail: first
                            ? "added by catalogue entry \(entry.id)" : "new copy of catalogue entry \(entry.id)"))
                if let refusal = catalogPeerRefusal(entry) {
                    try record(TitleHappening(token, kind: "peer", detail: "from the origin: \(refusal)"))
                }
            } catch {
                if memory.refusals.shouldLog("catalog-submit:\(entry.id)", now: clock.monotonic()) {
                    logger.warning(
                        "catalogue entry cannot be submitted", metadata: ["id": "\(entry.id)", "error": "\(error)"])
                }
            }
        case .swap(let id, let old, let new):
            try moveID(id, from: old, to: new)
            memory.catalog.record(effect, now: clock.now())
        case .scheduleRemoval(let token, let at):
            memory.catalog.record(effect, now: clock.now())
            try record(TitleHappening(token, kind: "catalog", detail: "to be removed at \(iso8601(at) ?? "?")"))
        case .keep:
            memory.catalog.record(effect, now: clock.now())
        case .delete(let token):
            logger.info("deleting a title the catalogue no longer lists", metadata: ["token": "\(token)"])
            try delete(token)
            memory.catalog.record(effect, now: clock.now())
        }
    }

    /// The swap: the id (what the gateway's `/titles/<id>/` and `/resolve?id=` answer) moves to the new copy in
    /// one transaction; devices playing the old copy by token keep it until it is deleted.
    private func moveID(_ id: String, from old: String, to new: String) throws {
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
            logger.error("catalogue swap failed", metadata: ["id": "\(id)", "error": "\(failure)"])
            throw failure
        }
        logger.info(
            "catalogue entry swapped to its new copy", metadata: ["id": "\(id)", "old": "\(old)", "new": "\(new)"])
        try record(
            TitleHappening(
                new, kind: "catalog", detail: "now serves catalogue entry \(id) (replaces \(old))", published: "state"))
    }

    /// `stowctl catalog apply`: the document and its signature as read from the file.
    func applyCatalog(document: String, signature: String?) throws -> CatalogReport {
        guard let bytes = Data(base64Encoded: document) else {
            throw TitleError(code: .refused, message: "the catalogue did not arrive as base64")
        }
        if let refusal = receiveCatalog(
            bytes, signature: signature.flatMap { Data(base64Encoded: $0) }, source: "apply")
        {
            let inForce = memory.catalog.catalog.map { "version \($0.version) stays in force" } ?? "none is in force"
            throw TitleError(
                code: .refused, message: "catalogue refused (\(refusal.code.rawValue)): \(refusal.message); \(inForce)")
        }
        reconcileCatalog()
        return try catalogReport()
    }

    /// `stowctl catalog status`.
    func catalogReport() throws -> CatalogReport {
        var titles: [String: CatalogBook.TitleFacts] = [:]
        for member in memory.catalog.members {
            guard let title = try store.title(member.token) else { continue }
            let error = title.errorCode.map {
                TitleError(code: ErrorCode(rawValue: $0) ?? .internal, message: title.errorMessage ?? "")
            }
            titles[member.token] = .init(state: title.state, error: error, suspendedReason: title.suspendedReason)
        }
        return memory.catalog.report(titles: titles, operatorIDs: try operatorIDs(), time: { iso8601($0) })
    }

    /// The submit for a catalogue entry: filled from its first source's peer (as `submit --from-peer`, its `url`
    /// the origin's source) when this box holds that credential for that peer (``PeerCredential``); else from the
    /// origin, and why is logged and kept as the title's event (``catalogPeerRefusal``).
    func catalogRequest(_ entry: CatalogEntry, withID: Bool) -> SubmitRequest {
        var request = entry.submitRequest(withID: withID)
        guard let source = entry.sources?.first else { return request }
        switch PeerCredential.read(source, home: options.home.root) {
        case .success(let secret):
            request.peer = PeerSource(url: source.peer, id: source.id ?? entry.id, secret: secret)
        case .failure(let refusal):
            if memory.refusals.shouldLog("catalog-peer:\(entry.id)", now: clock.monotonic()) {
                logger.warning(
                    "catalogue source not used; the title comes from its origin",
                    metadata: ["id": "\(entry.id)", "peer": "\(source.peer)", "reason": "\(refusal.message)"])
            }
        }
        return request
    }

    /// Why a catalogue entry's peer source was not used (nil: it was, or it names none), for the title's events.
    func catalogPeerRefusal(_ entry: CatalogEntry) -> String? {
        guard let source = entry.sources?.first,
            case .failure(let refusal) = PeerCredential.read(source, home: options.home.root)
        else { return nil }
        return refusal.message
    }
}

extension SchedulerService {
    /// A catalogue applied or refused, for the receivers (the box's own event, see ``TitleHappening/box(_:detail:)``);
    /// the store failing here loses the event, not the catalogue.
    func notifyCatalog(_ kind: NotifyEvent.Kind, detail: String) {
        do { try record(.box(kind, detail: detail)) } catch {
            logger.error("a catalogue notification could not be stored", metadata: ["error": "\(error)"])
        }
    }
}
