import Foundation
import StowageProtocol
import StowageRuntime
import StowageScheduling
import StowageStore

/// Expiring URLs: CDNs sign segment and key URLs with a lifetime shorter than a long download. A 401, 403 or
/// 410 on a segment or key re-resolves the title's playlists from its URL (fresh tokens), gives every file not
/// yet verified the URL of the file at the same position in the new plan, and tries the refused item once
/// more; only a refusal of the URL that re-resolution gave it fails the title.
///
/// Over a long download URLs expire again and again: a title re-resolves as often as needed while it makes
/// progress. A refusal fails it only when nothing was fetched since the last re-resolution (fresh URLs
/// refused: a real refusal). A refusal of a URL handed out before the last re-resolution just goes out again
/// with the fresh URL.
extension SchedulerService {
    /// A re-resolution under way and what waits for it.
    struct PendingRefresh {
        var resources: Set<Int64> = []
        var license = false
    }

    /// The last re-resolution of a title: when (monotonic) and how many fetches succeeded since.
    struct LastRefresh {
        var at: Double
        var fetchesSince = 0
    }

    /// HTTP answers that may mean "this signed URL expired".
    static let refusalStatuses: Set<Int> = [401, 403, 410]

    /// A fetch was refused: re-resolve (returns true) unless this very URL came from a re-resolution.
    func refreshAfterRefusal(_ r: ResourceRecord, _ failure: TaskFailure, lease: Lease) throws -> Bool {
        guard let status = failure.status, Self.refusalStatuses.contains(status), let id = r.id else { return false }
        let last = lastRefresh[r.token]
        let stale = last.map { lease.issuedAt < $0.at } ?? false
        if !stale, let last, last.fetchesSince == 0, refreshes[r.token] == nil { return false }
        var pending = r
        pending.state = ResourceState.pending.rawValue
        pending.lastError = failure.message
        try store.update(pending)
        if stale {
            // It went out with a URL from before the last re-resolution; the store has a fresh one.
            core.enqueue(fetchItem(pending), front: true)
            return true
        }
        try requestRefresh(r.token) { $0.resources.insert(id) }
        logger.info("refused: re-resolving the playlists for fresh URLs", metadata: [
            "token": "\(r.token)", "file": "\(r.localPath)", "status": "\(status)"])
        return true
    }

    /// A key (license work) was refused: re-resolve once for fresh key URIs.
    func refreshKeysAfterRefusal(_ token: String, _ failure: TaskFailure) throws -> Bool {
        guard let status = failure.status, Self.refusalStatuses.contains(status), let title = try store.title(token),
              title.planned, title.licenseTerms == nil || failure.code == .license || failure.code == .httpStatus else {
            return false
        }
        let uris = try store.keys(token: token).map(\.uri).joined(separator: "\n")
        if refreshedKeyURIs[token] == uris { return false }
        try requestRefresh(token) { $0.license = true }
        logger.info("key refused: re-resolving the playlists for fresh key URIs", metadata: ["token": "\(token)"])
        return true
    }

    private func requestRefresh(_ token: String, _ add: (inout PendingRefresh) -> Void) throws {
        let fresh = refreshes[token] == nil
        add(&refreshes[token, default: PendingRefresh()])
        guard fresh, let title = try store.title(token) else { return }
        core.enqueue(resolveItem(title), front: true)
    }

    /// The re-resolved plan of a title already planned: fresh URLs, then what waited goes out again.
    func applyRefresh(_ token: String, plan: ResolvedPlan) throws {
        let pending = refreshes.removeValue(forKey: token) ?? PendingRefresh()
        let changed = try store.refreshURLs(token: token, plan: plan)
        lastRefresh[token] = LastRefresh(at: monotonic())
        try store.appendEvent(token: token, kind: "refreshed", detail: "re-resolved: \(changed) URLs renewed")
        logger.info("playlists re-resolved", metadata: ["token": "\(token)", "urlsChanged": "\(changed)"])
        // Front of the queue, in playlist order (each front insertion goes before the previous one).
        for id in pending.resources.sorted(by: >) {
            guard let r = try store.resource(id: id), r.resourceState == .pending else { continue }
            core.enqueue(fetchItem(r), front: true)
        }
        if pending.license {
            refreshedKeyURIs[token] = try store.keys(token: token).map(\.uri).joined(separator: "\n")
            core.enqueue(WorkItem(token: token, kind: .license), front: true)
        }
    }
}
