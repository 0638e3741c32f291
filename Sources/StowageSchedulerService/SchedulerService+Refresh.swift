import Foundation
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// Expiring URLs (see ``URLRefreshPolicy``, which decides): a refused segment or key re-resolves the title's
/// playlists for fresh URLs, and what was refused goes out again with them.
extension SchedulerService {
    /// A fetch was refused: re-resolve, or send it again with the URL the store has now (returns true), or
    /// leave the failure to fail the title (returns false).
    func refreshAfterRefusal(_ r: ResourceRecord, _ failure: TaskFailure, lease: Lease) throws -> Bool {
        guard let id = r.id else { return false }
        let decision = memory.urlRefresh.fileRefused(
            token: r.token, resource: id, status: failure.status,
            issuedAt: lease.issuedAt)
        guard decision != .fail else { return false }
        var pending = r
        pending.state = .pending
        pending.lastError = failure.message
        try store.update(pending)
        switch decision {
        case .sendAgain:
            // It went out with a URL from before the last re-resolution; the store has a fresh one.
            core.enqueue(fetchItem(pending), front: true)
            return true
        case .reResolve:
            try queueReResolution(r.token)
        case .awaitReResolution, .fail:
            break
        }
        logger.info(
            "refused: re-resolving the playlists for fresh URLs",
            metadata: [
                "token": "\(r.token)", "file": "\(r.localPath)", "status": "\(failure.status ?? 0)",
            ])
        return true
    }

    /// A key (license work) was refused: re-resolve once for fresh key URIs.
    func refreshKeysAfterRefusal(_ token: String, _ failure: TaskFailure) throws -> Bool {
        guard let status = failure.status, URLRefreshPolicy.refusalStatuses.contains(status),
            let title = try store.title(token), title.planned,
            title.licenseTerms == nil || failure.code == .license || failure.code == .httpStatus
        else {
            return false
        }
        let uris = try store.keys(token: token).map(\.uri).joined(separator: "\n")
        switch memory.urlRefresh.keysRefused(token: token, status: status, keyURIs: uris) {
        case .fail, .sendAgain:
            return false
        case .reResolve:
            try queueReResolution(token)
        case .awaitReResolution:
            break
        }
        logger.info("key refused: re-resolving the playlists for fresh key URIs", metadata: ["token": "\(token)"])
        return true
    }

    /// Queues the title's resolve work first: its result is a re-resolution (``applyRefresh(_:plan:)``).
    private func queueReResolution(_ token: String) throws {
        guard let title = try store.title(token) else { return }
        core.enqueue(resolveItem(title), front: true)
    }

    /// The re-resolved plan of a title already planned: fresh URLs, then what waited goes out again.
    func applyRefresh(_ token: String, plan: ResolvedPlan) throws {
        let changed = try store.refreshURLs(token: token, plan: plan)
        let waiting = memory.urlRefresh.reResolved(token, now: clock.monotonic())
        try record(TitleHappening(token, kind: "refreshed", detail: "re-resolved: \(changed) URLs renewed"))
        logger.info("playlists re-resolved", metadata: ["token": "\(token)", "urlsChanged": "\(changed)"])
        // Front of the queue, in playlist order (each front insertion goes before the previous one).
        for id in waiting.resources.sorted(by: >) {
            guard let r = try store.resource(id: id), r.state == .pending else { continue }
            core.enqueue(fetchItem(r), front: true)
        }
        if waiting.license {
            memory.urlRefresh.keysReResolved(
                token, keyURIs: try store.keys(token: token).map(\.uri).joined(separator: "\n"))
            core.enqueue(WorkItem(token: token, kind: .license), front: true)
        }
    }
}
