import Foundation
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// The files of a title from a peer: fetched from the peer's gateway while the peer holds them, else from their
/// origin URL.
extension PeerComponent {
    /// Where a file is fetched from now: the peer's gateway (the whole stored file, with the peer secret and
    /// nothing of the title's own headers) while it is taken from the peer; nil: its origin URL.
    func fetch(_ r: ResourceRecord) -> (url: String, headers: [Header])? {
        guard r.peerSHA256 != nil, let peer = try? source(r.token) else { return nil }
        return (peer.fileURL(r.localPath), [peer.authorization])
    }

    /// A file the peer delivered: whether it is the peer's copy. A copy that hashes otherwise is removed and the
    /// file goes to the origin: answers the file as stored then, to be fetched again at once (the report is not
    /// recorded); nil: the report stands.
    func refusedCopy(_ id: Int64, _ report: FetchReport, token: String) throws -> ResourceRecord? {
        guard try source(token) != nil, let expected = try context.store.peerSHA256(ofResource: id),
            !PeerFill.accepts(reported: report.sha256, expected: expected),
            let r = try context.store.resource(id: id)
        else { return nil }
        let got = report.sha256.map { "\($0.prefix(16))…" } ?? "no hash"
        let reason = "its SHA-256 \(got) differs from the manifest's \(expected.prefix(16))…"
        return try takeFromOrigin(r, because: reason)
    }

    /// A fetch from the peer failed: the file as stored when it goes to the origin, to be fetched again at once
    /// (see ``PeerFill/next(after:slowAnswer:)``); nil: the failure is handled as any other.
    func fetchFailed(_ r: ResourceRecord, _ failure: TaskFailure) throws -> ResourceRecord? {
        guard r.peerSHA256 != nil,
            PeerFill.next(after: failure.code, slowAnswer: failure.slowAnswer == true) == .fromOrigin
        else { return nil }
        return try takeFromOrigin(r, because: failure.message)
    }

    /// The peer lacks the file or served it wrong: what it left is removed and the file is fetched from its origin
    /// URL from now on (with a fresh attempt budget).
    private func takeFromOrigin(_ resource: ResourceRecord, because reason: String) throws -> ResourceRecord {
        var r = resource
        context.logger.warning(
            "the peer lacks the file or served it wrong; taking it from the origin",
            metadata: ["token": "\(r.token)", "file": "\(r.localPath)", "reason": "\(reason)"])
        if let file = TitlePath.file(r.localPath, under: context.home.titleDirectory(r.token), for: .stored) {
            try? FileManager.default.removeItem(at: file)
        }
        r.peerSHA256 = nil
        r.state = .pending
        r.attempts = 0
        r.lastError = "peer: \(reason)"
        try context.store.update(r)
        try context.desk.record(
            TitleHappening(r.token, kind: "peer", detail: "\(r.localPath) from the origin: \(reason)"))
        return r
    }
}
