import Foundation
import StowageProtocol
import StowageRuntime
import StowageStore

/// The resolve of a title from a peer: the peer's manifest is its plan, or the title goes to its origin.
extension PeerComponent {
    /// What a peer's plan means for its title (``adopt(_:title:)``).
    enum Adoption {
        /// The plan is the title's; the title as updated (its source is the manifest's).
        case adopted(TitleRecord)
        /// The plan was refused: the title failed.
        case failed
        /// The peer's copy is of another source: the title (peer dropped) is to be resolved from its origin URL.
        case fromOrigin(TitleRecord)
    }

    /// The resolve of a title from a peer not planned yet: the peer's manifest, fetched with the peer secret (nil:
    /// the title has no peer).
    func resolveWork(_ title: TitleRecord) throws -> Work? {
        guard let peer = try source(title.token) else { return nil }
        var work = ResolveWork(url: peer.manifestURL, headers: [peer.authorization], selection: title.selection)
        work.peer = true
        return .resolve(work)
    }

    /// A resolve's plan for a title from a peer, before it is saved: the plan must be a peer's (its manifest's
    /// source an http(s) URL this box may fetch), and the title takes that source as its URL and the peer's name
    /// unless it has one.
    func adopt(_ plan: ResolvedPlan, title: TitleRecord) throws -> Adoption {
        let manifest = URLRedaction.redacted(title.url)
        guard let peer = plan.peer else {
            try context.desk.fail(
                title.token, TitleError(code: .refused, message: "\(manifest): the plan is not a peer's"))
            return .failed
        }
        guard let url = URL(string: peer.source), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme), url.host != nil
        else {
            let message = "\(manifest): the manifest's source '\(peer.source.prefix(200))' is not an http(s) URL"
            try context.desk.fail(title.token, TitleError(code: .refused, message: message))
            return .failed
        }
        if let reason = allowedHosts?.refusal(peer.source) {
            try context.desk.fail(
                title.token, TitleError(code: .refused, message: reason + " (stowage-scheduler --allow-hosts)"))
            return .failed
        }
        if title.url != title.peer?.manifestURL, peer.source != title.url {
            return .fromOrigin(
                try fillFromOrigin(title, because: "the peer's copy is of \(URLRedaction.redacted(peer.source))"))
        }
        var updated = title
        updated.url = peer.source
        updated.name = title.name ?? peer.name
        try context.store.update(updated)
        try context.desk.record(
            TitleHappening(title.token, kind: "peer", detail: "manifest of \(manifest): source \(peer.source)"))
        return .adopted(updated)
    }

    /// A resolve of a peer's manifest failed: the title (peer dropped) when it is then to be resolved from its
    /// origin instead. Only a title whose origin source is known (a catalogue entry's) does so, and only when the
    /// peer answered (it lacks the title, refuses the secret, sent no manifest); a peer that cannot be reached is
    /// waited for (nil).
    func resolveFailed(_ failure: TaskFailure, token: String) throws -> TitleRecord? {
        guard let title = try context.store.title(token), let peer = title.peer, !title.planned,
            title.url != peer.manifestURL, !(failure.code == .network && failure.retryable)
        else { return nil }
        return try fillFromOrigin(title, because: failure.message)
    }

    /// After a peer's plan is saved: every file the peer holds verified is taken from the peer (see ``PeerFill``).
    func expect(_ plan: ResolvedPlan, token: String) throws {
        var hashes: [Int: String] = [:]
        for (position, file) in plan.resources.enumerated() {
            if let sha256 = file.peerSHA256 { hashes[position] = sha256 }
        }
        try context.store.expectFromPeer(token: token, hashes: hashes)
        try context.desk.record(
            TitleHappening(
                token, kind: "peer",
                detail: "\(hashes.count) of \(plan.resources.count) files from the peer, the rest from the origin"))
    }

    /// The title stops filling from its peer (its secret and all); answers it as stored, for its resolve from the
    /// origin URL.
    private func fillFromOrigin(_ title: TitleRecord, because reason: String) throws -> TitleRecord {
        context.logger.warning(
            "the peer cannot fill the title; resolving it from the origin",
            metadata: ["token": "\(title.token)", "reason": "\(reason)"])
        var direct = title
        direct.peer = nil
        direct.reach = nil
        try context.store.update(direct)
        dropSource(title.token)
        try context.desk.record(TitleHappening(title.token, kind: "peer", detail: "from the origin: \(reason)"))
        return direct
    }
}
