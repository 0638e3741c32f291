import Foundation
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// Results of tasks: what each means for its title, by kind of work and outcome.
extension SchedulerService {
    /// Carries out what a finished task means for its title.
    /// `sent`: the resources of a fetch batch as sent, in order (nil for other tasks).
    func apply(_ outcome: Outcome, of lease: Lease, sent: [Int64]?) throws {
        let token = lease.item.token
        // Only the state on the hot path (a result per segment); the whole record where it is needed.
        guard let state = try store.titleState(token) else { return }
        let renewalOfCompleted = lease.item.kind == .license && state == .completed
        let scrubOfCompleted = verification?.isScrub(token) == true && state == .completed
        guard !state.isFinal || renewalOfCompleted || scrubOfCompleted else { return }
        switch (lease.item.kind, outcome) {
        case (.resolve, .resolved(let plan)):
            try applyPlan(plan, token: token)
        case (.reload(let position), .reloaded(let report)):
            try recording?.applyReload(report, rendition: position, lease: lease)
        case (.reload, .failed(let failure)):
            try recording?.reloadFailed(failure, lease: lease)
        case (.license, .licensed(let grant)) where recording?.isKeyRequest(lease.taskID) == true:
            if let failure = try recording?.applyKeys(grant, lease: lease) { try licenseFailed(failure, lease: lease) }
        case (.license, .licensed(let grant)):
            do { try licensing?.applyLicense(grant, token: token) } catch let error as TitleError {
                try licenseFailed(TaskFailure(code: error.code, message: error.message, retryable: false), lease: lease)
            }
        case (.license, .failed(let failure)):
            recording?.keyRequestFailed(lease.taskID)
            try licenseFailed(failure, lease: lease)
        case (.fetch, .fetchedBatch(let report)):
            try applyBatch(report, of: lease, sent: sent)
        case (.fetch(let id), .fetched(let report)):
            try fetched(id, report, token: token)
        case (.verify(let id), .verified(let report)):
            try applyVerified(id, report, token: token)
        case (.fetch(let id), .failed(let failure)):
            try fetchFailed(sent?.first ?? id, failure, lease: lease)
            // A batch that failed as a whole (its worker could not run it): the rest goes back to the queue.
            requeue(sent?.dropFirst() ?? [], of: lease)
        case (.verify, .failed(let failure)):
            logger.warning(
                "verification could not run; trying again",
                metadata: ["token": "\(token)", "error": "\(failure.message)"])
            memory.retries.schedule(lease.item, at: clock.monotonic() + 1)
        case (_, .failed(let failure)):
            try taskFailed(failure, lease: lease)
        default:
            throw ProtocolError(.badBody, "result \(outcome) does not answer a \(lease.item.kind) task")
        }
    }

    /// A resolve's plan: saved (with the poster) unless it cannot be downloaded; a license comes next.
    func applyPlan(_ resolved: ResolvedPlan, token: String) throws {
        guard var title = try store.title(token) else { return }
        try messages.rememberReach(token, title, resolved.reach)
        if title.planned { return try urlRefresh?.reResolved(token, plan: resolved) ?? () }
        if title.peer != nil, let peer {
            switch try peer.adopt(resolved, title: try store.title(token) ?? title) {
            case .adopted(let adopted):
                messages.scopeChanged(token)
                title = adopted
            case .failed:
                return
            case .fromOrigin(let direct):
                return resolveFromOrigin(direct)
            }
        }
        let request = PlanAdmission.Request(
            url: title.url, recording: title.record != nil,
            keySource: title.licenseURL != nil || title.operatorKeys != nil, allowDeviceDRM: title.allowDeviceDRM,
            posterURL: title.posterURL)
        let plan: ResolvedPlan
        switch PlanAdmission.of(resolved, for: request) {
        case .admitted(let admitted): plan = admitted
        case .refused(let error): return try fail(token, error)
        }
        // `--file`: a source that turns out protected cannot become one file (``SingleFileClearance``).
        if title.singleFile != nil, plan.protection != nil || !plan.keys.isEmpty,
            let refusal = SingleFileClearance(terms: nil, operatorKeys: true).refusal
        {
            return try fail(token, TitleError(code: refusal.code, message: "--file: \(title.url): " + refusal.message))
        }
        // Under a quota the title evicts what the policy allows (before the disk check: that frees space too).
        let overQuota = try quota?.refusal(token, need: plan.bytesEstimate ?? 0)
        if let refusal = try disk?.refusal(token, need: plan.bytesEstimate ?? 0) {
            return try fail(token, TitleError(code: .diskFull, message: "\(title.url): \(refusal)"))
        }
        let folderExisted = FileManager.default.fileExists(atPath: options.home.titleDirectory(token).path)
        try store.savePlan(token: token, plan: plan)
        if title.peer != nil { try peer?.expect(plan, token: token) }
        if !folderExisted { memory.pacing.startFresh(token) }
        try record(
            TitleHappening(
                token, kind: "planned",
                detail: "\(plan.resources.count) files in \(plan.renditions.count) playlists"))
        if let reason = overQuota, let quota { return try quota.wait(token, reason: reason) }
        try handle(.planned, of: token)
        if try licensing?.grantOperatorKeys(token) == true { return }
        core.enqueue(WorkItem(token: token, kind: .license))
    }

    /// An integrity check's verdict on one file (``CheckVerdict``): verified, or fetched again.
    private func applyVerified(_ id: Int64, _ report: VerifyReport, token: String) throws {
        guard var r = try store.resource(id: id) else { return }
        // A file the box writes (its subtitles, its single file): not made (the title completes without it), or
        // written (its length taken).
        let writer = r.kind.isWrittenByBox ? boxWriters.first { $0.kind == r.kind } : nil
        if let writer, try writer.applied(report, to: &r) { return try checkComplete(token) }
        if try verification?.recordResult(r, ok: report.ok, reason: report.reason) == true { return }
        switch CheckVerdict.of(report, known: r.sha256) {
        case .verified(let sha256):
            metrics.verified(bytes: r.bytes ?? 0)
            r.sha256 = sha256
            r.state = .verified
            r.lastError = nil
            try store.update(r)
            publishProgress(token, throttled: true)
            try checkComplete(token)
            try verification?.finishIfDone(token)
        case .fetchAgain(let reason, _) where r.kind.isWrittenByBox:
            // Never fetched (it has no URL): written again from the title's verified files.
            if let item = try writer?.writeAgain(r, reason: reason) {
                core.enqueue(item)
            } else {
                try checkComplete(token)
            }
        case .fetchAgain(let reason, let removeFile):
            if removeFile {
                logger.warning(
                    "integrity check failed; fetching again",
                    metadata: ["token": "\(token)", "file": "\(r.localPath)", "reason": "\(report.reason ?? "")"])
                try? FileManager.default.removeItem(
                    at: options.home.titleDirectory(token).appendingPathComponent(r.localPath))
            }
            try retry(r, reason: reason, code: .integrity)
        }
    }

    /// A resolve, license or reload task that failed: retried with backoff within the budget; then the title waits
    /// for the network (connectivity) or fails.
    private func taskFailed(_ failure: TaskFailure, lease: Lease) throws {
        let token = lease.item.token
        if lease.item.kind == .resolve, let direct = try peer?.resolveFailed(failure, token: token) {
            return resolveFromOrigin(direct)
        }
        if retryTask(lease.item, after: failure) { return }
        if failure.code == .network, failure.retryable {
            let title = try store.title(token)
            try suspendForNetwork(
                token, endpoint: failure.endpoint ?? title.flatMap { HostProbe.endpoint(of: $0.url) },
                message: failure.message)
        } else {
            try fail(token, TitleError(code: failure.code, message: failure.message))
        }
    }

    /// A title from a peer that the peer cannot fill (its peer dropped): resolved from its origin URL.
    private func resolveFromOrigin(_ direct: TitleRecord) {
        messages.forget(direct.token)
        core.enqueue(resolveItem(direct))
    }
}
