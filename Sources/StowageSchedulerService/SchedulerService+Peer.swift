import Foundation
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// Peer fill: this box's titles offered to other boxes (the manifest the gateway serves at
/// `/titles/<id>/manifest.json`), and titles made from another box's files (`submit --from-peer`): the peer's plan
/// is the title's, each file the peer holds is fetched from its gateway and must hash to the peer's SHA-256, and a
/// file the peer lacks or serves wrong comes from the origin URL of the plan (``PeerFill``).
extension SchedulerService {
    /// A title's manifest for a peer: its plan, and each file this box holds verified with its size and SHA-256.
    /// Recordings are not offered (their gaps and reloads are this box's own).
    func peerManifest(_ key: String) throws -> PeerManifest {
        guard let title = try store.title(key) ?? store.title(externalID: key) else { throw unknownTitle(key) }
        guard title.planned, title.record == nil else {
            throw TitleError(
                code: .notFound,
                message: "title \(title.token) \(title.record != nil ? "is a recording" : "has no plan yet"): "
                    + "there is nothing to fill from")
        }
        let token = title.token
        let records = try store.resources(token: token)
        var plan = try store.storedPlan(title, resources: records)
        plan.reach = nil  // how far this box's fetches of it reach is this box's own
        let files = zip(plan.resources, records).map { planned, r in
            let held = r.state == .verified && r.sha256 != nil
            return PeerFile(planned: planned, size: held ? r.bytes : nil, sha256: held ? r.sha256 : nil)
        }
        plan.resources = []
        return PeerManifest(
            token: token, id: title.externalID, name: title.name, source: title.url,
            entry: title.manifestName ?? "master.m3u8", plan: plan, files: files)
    }

    /// A submit from a peer, checked. Its `url` is the origin's source when the caller knows it (a catalogue
    /// entry's `url`), else the peer's manifest URL (`stowctl submit --from-peer`); the title's resolve (a download
    /// worker fetching that manifest, see ``peerResolveWork(_:)``) then makes it the source the manifest names.
    func checkPeer(_ submit: SubmitRequest) throws {
        guard let peer = submit.peer else { return }
        if let problem = peer.problem {
            throw TitleError(code: .refused, message: "\(URLRedaction.redacted(peer.url)): \(problem)")
        }
        guard submit.record == nil else {
            throw TitleError(code: .refused, message: "a recording cannot be filled from a peer: record it here")
        }
        if let reason = options.allowedHosts?.refusal(peer.url) {
            throw TitleError(code: .refused, message: reason + " (stowage-scheduler --allow-hosts)")
        }
    }

    /// The resolve of a title from a peer not planned yet: the peer's manifest, fetched with the peer secret.
    func peerResolveWork(_ title: TitleRecord) throws -> Work? {
        guard let peer = try titlePeer(title.token) else { return nil }
        var work = ResolveWork(url: peer.manifestURL, headers: [peer.authorization], selection: title.selection)
        work.peer = true
        return .resolve(work)
    }

    /// A resolve's plan for a title from a peer, before it is saved: the plan must be a peer's (its manifest's
    /// source an http(s) URL this box may fetch), and the title takes that source as its URL and the peer's name
    /// unless it has one. Answers the title as updated, or nil when it failed (`refused`).
    func adoptPeerPlan(_ plan: ResolvedPlan, title: TitleRecord) throws -> TitleRecord? {
        let manifest = URLRedaction.redacted(title.url)
        guard let peer = plan.peer else {
            try fail(title.token, TitleError(code: .refused, message: "\(manifest): the plan is not a peer's"))
            return nil
        }
        guard let url = URL(string: peer.source), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme), url.host != nil
        else {
            let message = "\(manifest): the manifest's source '\(peer.source.prefix(200))' is not an http(s) URL"
            try fail(title.token, TitleError(code: .refused, message: message))
            return nil
        }
        if let reason = options.allowedHosts?.refusal(peer.source) {
            try fail(title.token, TitleError(code: .refused, message: reason + " (stowage-scheduler --allow-hosts)"))
            return nil
        }
        if title.url != title.peer?.manifestURL, peer.source != title.url {
            try fillFromOrigin(title, because: "the peer's copy is of \(URLRedaction.redacted(peer.source))")
            return nil
        }
        var updated = title
        updated.url = peer.source
        updated.name = title.name ?? peer.name
        try store.update(updated)
        memory.caches.scopeChanged(title.token)
        try record(TitleHappening(title.token, kind: "peer", detail: "manifest of \(manifest): source \(peer.source)"))
        return updated
    }

    /// A resolve of a peer's manifest failed: true when the title is then resolved from its origin instead. Only
    /// a title whose origin source is known (a catalogue entry's) does so, and only when the peer answered (it
    /// lacks the title, refuses the secret, sent no manifest); a peer that cannot be reached is waited for.
    func peerResolveFailed(_ failure: TaskFailure, token: String) throws -> Bool {
        guard let title = try store.title(token), let peer = title.peer, !title.planned,
            title.url != peer.manifestURL, !(failure.code == .network && failure.retryable)
        else { return false }
        try fillFromOrigin(title, because: failure.message)
        return true
    }

    /// The title stops filling from its peer (its secret and all) and is resolved from its origin URL.
    private func fillFromOrigin(_ title: TitleRecord, because reason: String) throws {
        logger.warning(
            "the peer cannot fill the title; resolving it from the origin",
            metadata: ["token": "\(title.token)", "reason": "\(reason)"])
        var direct = title
        direct.peer = nil
        direct.reach = nil
        try store.update(direct)
        memory.caches.forget(title.token)
        try record(TitleHappening(title.token, kind: "peer", detail: "from the origin: \(reason)"))
        core.enqueue(resolveItem(direct))
    }

    /// After a peer's plan is saved: every file the peer holds verified is taken from the peer (see ``PeerFill``).
    func expectFromPeer(_ plan: ResolvedPlan, token: String) throws {
        var hashes: [Int: String] = [:]
        for (position, file) in plan.resources.enumerated() {
            if let sha256 = file.peerSHA256 { hashes[position] = sha256 }
        }
        try store.expectFromPeer(token: token, hashes: hashes)
        try record(
            TitleHappening(
                token, kind: "peer",
                detail: "\(hashes.count) of \(plan.resources.count) files from the peer, the rest from the origin"))
    }

    /// The peer box a title fills from (nil: none, or no such title), its secret unwrapped; cached per title.
    func titlePeer(_ token: String) throws -> PeerSource? {
        try memory.caches.peer(token) {
            try store.title(token).map { title in
                try title.peer.map { stored in
                    var peer = stored
                    let wrapped = Data(base64Encoded: stored.secret) ?? Data()
                    peer.secret = String(
                        decoding: try vault.unwrap(wrapped, token: "peer:\(token)", index: 0), as: UTF8.self)
                    return peer
                }
            }
        }
    }

    /// The peer as the store keeps it: its secret wrapped under the master key (bound to the title), so a copy of
    /// the store alone cannot fill from the other box.
    func wrapPeerSecret(_ peer: PeerSource, token: String) throws -> PeerSource {
        var stored = peer
        stored.secret = try vault.wrap(Array(peer.secret.utf8), token: "peer:\(token)", index: 0).base64EncodedString()
        return stored
    }

    /// Where a file is fetched from now: the peer's gateway (the whole stored file, with the peer secret and
    /// nothing of the title's own headers) while it is taken from the peer, else its origin URL.
    func peerFetch(_ r: ResourceRecord) -> (url: String, headers: [Header])? {
        guard r.peerSHA256 != nil, let peer = try? titlePeer(r.token) else { return nil }
        return (peer.fileURL(r.localPath), [peer.authorization])
    }

    /// A file the peer delivered: whether it is the peer's copy. A copy that hashes otherwise is removed and the
    /// file goes to the origin; true when that happened (the report is not recorded).
    func refusedPeerCopy(_ id: Int64, _ report: FetchReport, token: String) throws -> Bool {
        guard try titlePeer(token) != nil, let expected = try store.peerSHA256(ofResource: id),
            !PeerFill.accepts(reported: report.sha256, expected: expected),
            let r = try store.resource(id: id)
        else { return false }
        let got = report.sha256.map { "\($0.prefix(16))…" } ?? "no hash"
        try takeFromOrigin(r, because: "its SHA-256 \(got) differs from the manifest's \(expected.prefix(16))…")
        return true
    }

    /// A fetch from the peer failed: true when the file goes to the origin (see ``PeerFill/next(after:)``).
    func peerFetchFailed(_ r: ResourceRecord, _ failure: TaskFailure) throws -> Bool {
        guard r.peerSHA256 != nil,
            PeerFill.next(after: failure.code, slowAnswer: failure.slowAnswer == true) == .fromOrigin
        else { return false }
        try takeFromOrigin(r, because: failure.message)
        return true
    }

    /// The peer lacks the file or served it wrong: what it left is removed and the file is fetched from its origin
    /// URL from now on (at once, with a fresh attempt budget).
    private func takeFromOrigin(_ resource: ResourceRecord, because reason: String) throws {
        var r = resource
        logger.warning(
            "the peer lacks the file or served it wrong; taking it from the origin",
            metadata: ["token": "\(r.token)", "file": "\(r.localPath)", "reason": "\(reason)"])
        if let file = TitlePath.file(r.localPath, under: options.home.titleDirectory(r.token), for: .stored) {
            try? FileManager.default.removeItem(at: file)
        }
        r.peerSHA256 = nil
        r.state = .pending
        r.attempts = 0
        r.lastError = "peer: \(reason)"
        try store.update(r)
        try record(TitleHappening(r.token, kind: "peer", detail: "\(r.localPath) from the origin: \(reason)"))
        memory.retries.schedule(fetchItem(r), at: clock.monotonic())
    }
}
