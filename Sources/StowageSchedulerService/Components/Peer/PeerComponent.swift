import Foundation
import StowageLicensing
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// Peer fill: this box's titles offered to other boxes (the manifest the gateway serves at
/// `/titles/<id>/manifest.json`), and titles made from another box's files (`submit --from-peer`, a catalogue's
/// `sources`): the peer's plan is the title's, each file the peer holds is fetched from its gateway and must hash to
/// the peer's SHA-256, and a file the peer lacks or serves wrong comes from the origin URL of the plan
/// (``PeerFill``).
///
/// It owns the peer fields of titles and files (the peer, its wrapped secret, the hashes a file must have) and the
/// unwrapped peer of each title. The pipeline consults it through small typed hooks (the work a title's resolve or
/// a file's fetch is, what a peer's plan or answer means); where the answer is "from the origin", the peer's part
/// is undone here and the pipeline, which owns the queues, queues the resolve or fetch again.
final class PeerComponent: SchedulerComponent {
    let name = "peer"
    let context: ComponentContext
    /// Wraps and unwraps the peer secrets the store keeps (bound to their title).
    private let vault: KeyVault
    /// The only origin hosts titles may be fetched from (`--allow-hosts`); a peer and its manifest's source too.
    let allowedHosts: HostAllowList?
    /// The title's offline plan as stored (the service's, shared with bundles' exports).
    private let storedPlan: (TitleRecord, [ResourceRecord]) throws -> ResolvedPlan
    /// The peer each title fills from, its secret unwrapped (nil inside: none); bounded, cleared past 10,000.
    private var sources: [String: PeerSource?] = [:]

    init(
        context: ComponentContext, vault: KeyVault, allowedHosts: HostAllowList?,
        storedPlan: @escaping (TitleRecord, [ResourceRecord]) throws -> ResolvedPlan
    ) {
        self.context = context
        self.vault = vault
        self.allowedHosts = allowedHosts
        self.storedPlan = storedPlan
    }

    func answer(_ request: ComponentRequest) throws -> ReplyBody? {
        guard case .peerManifest(let key) = request.operation else { return nil }
        return .peerManifest(try manifest(key))
    }

    func forget(_ token: String) { sources[token] = nil }

    /// How many of its verified files a title took from its peer, and how many from the origin.
    func describe(_ title: TitleRecord, into status: inout TitleStatus) {
        let fromPeer = title.peer == nil ? 0 : (try? context.store.filesFromPeer(token: title.token)) ?? 0
        // The files the box wrote itself (its subtitles as text, its single file) came from neither.
        let written = [PlannedResource.Kind.subtitleText, .singleFile].reduce(0) { sum, kind in
            sum
                + ((try? context.store.resources(token: title.token, kind: kind).filter { $0.state == .verified }
                    .count) ?? 0)
        }
        status.filesFromPeer = fromPeer
        status.filesFromOrigin = status.segmentsDone - fromPeer - written
    }

    /// A title's manifest for a peer: its plan, and each file this box holds verified with its size and SHA-256.
    /// Recordings are not offered (their gaps and reloads are this box's own).
    private func manifest(_ key: String) throws -> PeerManifest {
        guard let title = try context.store.title(key) ?? context.store.title(externalID: key) else {
            throw TitleError(
                code: .notFound, message: "no title with token '\(key.prefix(64))'; `stowctl list` shows the tokens")
        }
        guard title.planned, title.record == nil else {
            throw TitleError(
                code: .notFound,
                message: "title \(title.token) \(title.record != nil ? "is a recording" : "has no plan yet"): "
                    + "there is nothing to fill from")
        }
        let token = title.token
        // The files the box writes itself (its subtitles as text, its single file) are not offered: a box filled
        // from this one writes its own when its copy completes (its own `--file` says whether).
        let records = try context.store.resources(token: token).filter { !$0.kind.isWrittenByBox }
        var plan = try storedPlan(title, records)
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
    /// worker fetching that manifest, see ``resolveWork(_:)``) then makes it the source the manifest names.
    func check(_ submit: SubmitRequest) throws {
        guard let peer = submit.peer else { return }
        if let problem = peer.problem {
            throw TitleError(code: .refused, message: "\(URLRedaction.redacted(peer.url)): \(problem)")
        }
        guard submit.record == nil else {
            throw TitleError(code: .refused, message: "a recording cannot be filled from a peer: record it here")
        }
        if let reason = allowedHosts?.refusal(peer.url) {
            throw TitleError(code: .refused, message: reason + " (stowage-scheduler --allow-hosts)")
        }
    }

    /// The peer as the store keeps it: its secret wrapped under the master key (bound to the title), so a copy of
    /// the store alone cannot fill from the other box.
    func wrapSecret(_ peer: PeerSource, token: String) throws -> PeerSource {
        var stored = peer
        stored.secret = try vault.wrap(Array(peer.secret.utf8), token: "peer:\(token)", index: 0).base64EncodedString()
        return stored
    }

    /// The peer box a title fills from (nil: none, or no such title), its secret unwrapped; cached per title.
    func source(_ token: String) throws -> PeerSource? {
        if let cached = sources[token] { return cached }
        guard let title = try context.store.title(token) else { return nil }
        let peer = try title.peer.map { stored in
            var peer = stored
            let wrapped = Data(base64Encoded: stored.secret) ?? Data()
            peer.secret = String(decoding: try vault.unwrap(wrapped, token: "peer:\(token)", index: 0), as: UTF8.self)
            return peer
        }
        if sources.count > 10_000 { sources.removeAll() }
        sources[token] = .some(peer)
        return peer
    }

    /// The title no longer fills from a peer: its unwrapped peer is read again when next needed.
    func dropSource(_ token: String) { sources[token] = nil }
}
