import Foundation
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// Expiring URLs (see ``URLRefreshPolicy``, which decides): a refused segment or key re-resolves the title's
/// playlists for fresh URLs, and what was refused goes out again with them. A stage of the pipeline: it puts the
/// resolve and the refused work back at the front of the queue.
final class URLRefreshComponent: SchedulerComponent {
    let name = "url-refresh"
    private let context: ComponentContext
    private unowned let pipeline: any PipelineDesk
    private var policy = URLRefreshPolicy()

    init(context: ComponentContext, pipeline: any PipelineDesk) {
        self.context = context
        self.pipeline = pipeline
    }

    func forget(_ token: String) { policy.forget(token) }

    /// A file of the title arrived: its URLs still work.
    func fetched(_ token: String) { policy.fetched(token) }

    /// A fetch was refused: re-resolve, or send it again with the URL the store has now (returns true), or
    /// leave the failure to fail the title (returns false).
    func fileRefused(_ r: ResourceRecord, _ failure: TaskFailure, lease: Lease) throws -> Bool {
        guard let id = r.id else { return false }
        let decision = policy.fileRefused(
            token: r.token, resource: id, status: failure.status,
            issuedAt: lease.issuedAt)
        guard decision != .fail else { return false }
        var pending = r
        pending.state = .pending
        pending.lastError = failure.message
        try context.store.update(pending)
        switch decision {
        case .sendAgain:
            // It went out with a URL from before the last re-resolution; the store has a fresh one.
            pipeline.enqueueFirst(pipeline.fetchItem(pending))
            return true
        case .reResolve:
            try queueReResolution(r.token)
        case .awaitReResolution, .fail:
            break
        }
        context.logger.info(
            "refused: re-resolving the playlists for fresh URLs",
            metadata: [
                "token": "\(r.token)", "file": "\(r.localPath)", "status": "\(failure.status ?? 0)",
            ])
        return true
    }

    /// A key (license work) was refused: re-resolve once for fresh key URIs.
    func keysRefused(_ token: String, _ failure: TaskFailure) throws -> Bool {
        guard let status = failure.status, URLRefreshPolicy.refusalStatuses.contains(status),
            let title = try context.store.title(token), title.planned,
            title.licenseTerms == nil || failure.code == .license || failure.code == .httpStatus
        else {
            return false
        }
        let uris = try context.store.keys(token: token).map(\.uri).joined(separator: "\n")
        switch policy.keysRefused(token: token, status: status, keyURIs: uris) {
        case .fail, .sendAgain:
            return false
        case .reResolve:
            try queueReResolution(token)
        case .awaitReResolution:
            break
        }
        context.logger.info(
            "key refused: re-resolving the playlists for fresh key URIs", metadata: ["token": "\(token)"])
        return true
    }

    /// Queues the title's resolve work first: its result is a re-resolution (``reResolved(_:plan:)``).
    private func queueReResolution(_ token: String) throws {
        guard let title = try context.store.title(token) else { return }
        pipeline.enqueueFirst(pipeline.resolveItem(title))
    }

    /// The re-resolved plan of a title already planned: fresh URLs, then what waited goes out again.
    func reResolved(_ token: String, plan: ResolvedPlan) throws {
        let changed = try context.store.refreshURLs(token: token, plan: plan)
        let waiting = policy.reResolved(token, now: context.clock.monotonic())
        try context.desk.record(
            TitleHappening(token, kind: "refreshed", detail: "re-resolved: \(changed) URLs renewed"))
        context.logger.info("playlists re-resolved", metadata: ["token": "\(token)", "urlsChanged": "\(changed)"])
        // Front of the queue, in playlist order (each front insertion goes before the previous one).
        for id in waiting.resources.sorted(by: >) {
            guard let r = try context.store.resource(id: id), r.state == .pending else { continue }
            pipeline.enqueueFirst(pipeline.fetchItem(r))
        }
        if waiting.license {
            policy.keysReResolved(
                token, keyURIs: try context.store.keys(token: token).map(\.uri).joined(separator: "\n"))
            pipeline.enqueueFirst(WorkItem(token: token, kind: .license))
        }
    }
}
