import Foundation
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// Fetch results, one file at a time or a batch at once (``FetchBatch``): what each means for its file and title.
extension SchedulerService {
    /// The work of a fetch batch lease (``TaskMessages/batch(_:)``); the resources sent are remembered to read the
    /// results by. Nil when none is left.
    func batchWork(_ lease: Lease) throws -> Work? {
        guard let batch = try messages.batch(lease) else { return nil }
        memory.pacing.sent(batch.ids, task: lease.taskID) { core.leases[$0] != nil }
        logger.debug("fetch batch", metadata: ["files": "\(batch.ids.count)", "token": "\(lease.item.token)"])
        return batch.work
    }

    /// Learns how long a title's files take to fetch (per file, from the lease's time out) and sizes its batches
    /// by it: fast small files go out many at once, slow ones one per lease.
    func notePace(of lease: Lease) {
        guard case .fetch = lease.item.kind else { return }
        let token = lease.item.token
        memory.pacing.fetched(token, files: lease.items.count, issuedAt: lease.issuedAt, now: clock.monotonic())
        setFetchBatch(token)
    }

    /// The batch size of a title: by file size (``queueSegmentWork(_:)``) and by pace; one file per lease until
    /// the pace is known.
    func setFetchBatch(_ token: String) {
        core.setFetchBatch(token, memory.pacing.batchSize(token, limit: core.limits.fetchBatch))
    }

    /// The results of a batch, item by item, as if each had been a task of its own; items not attempted go back
    /// to the front of the queue without counting an attempt. Stops when the title ended on the way.
    func applyBatch(_ report: FetchBatchReport, of lease: Lease, sent: [Int64]?) throws {
        let token = lease.item.token
        let ids = sent ?? []
        guard report.results.count == ids.count else {
            // A malformed answer: nothing of it is trusted, every file goes out again.
            requeue(ids, of: lease)
            throw ProtocolError(.badBody, "a fetch batch of \(ids.count) files answered with \(report.results.count)")
        }
        var untried: [Int64] = []
        // The title's state is read again only after what can change it: a failure, or a file that may have been
        // its last (a result per file otherwise; a query each was a tenth of the scheduler's time on small files).
        var stateMayHaveChanged = true
        for (id, result) in zip(ids, report.results) {
            if stateMayHaveChanged {
                guard let state = try store.titleState(token), !state.isFinal, state != .suspended else { return }
                stateMayHaveChanged = false
            }
            switch result {
            case .fetched(let fetch):
                stateMayHaveChanged = try fetched(id, fetch, token: token)
            case .failed(let failure):
                try fetchFailed(id, failure, lease: lease)
                stateMayHaveChanged = true
            case .notAttempted: untried.append(id)
            }
        }
        requeue(untried, of: lease)
    }

    /// Puts fetches of a lease back at the front of the queue, in their order, without counting an attempt.
    func requeue(_ ids: some Collection<Int64>, of lease: Lease) {
        let wanted = Set(ids)
        for item in lease.items.reversed() {
            if case .fetch(let id) = item.kind, wanted.contains(id) { core.enqueue(item, front: true) }
        }
    }

    /// A file arrived (hashed and checked while it streamed in, durable before the report: verified).
    /// Returns false when the title's state cannot have changed (the file was verified and work remains).
    @discardableResult
    func fetched(_ id: Int64, _ report: FetchReport, token: String) throws -> Bool {
        // From a peer: the peer's copy or nothing (a titlePeer cache lookup for any other title).
        if let r = try peer?.refusedCopy(id, report, token: token) {
            memory.retries.schedule(fetchItem(r), at: clock.monotonic())
            return true
        }
        // The one fact checked for every file, read without the whole record; the rest only when needed.
        guard let rangeLength = try store.rangeLength(ofResource: id) else { return true }
        if let expected = rangeLength, expected != report.bytes {
            guard let r = try store.resource(id: id) else { return true }
            try retry(r, reason: "got \(report.bytes) bytes of a \(expected)-byte range", code: .network)
            return true
        }
        urlRefresh?.fetched(token)
        try pathways?.fetched(id, report, token: token)
        if let network, network.anyFailing, let r = try store.resource(id: id),
            let host = HostProbe.endpoint(of: peer?.fetch(r)?.url ?? r.url)
        {
            network.answered(host)
        }
        guard let sha256 = report.sha256 else {
            guard var r = try store.resource(id: id) else { return true }
            r.bytes = report.bytes
            r.contentLength = report.contentLength
            r.state = .fetched
            r.sha256 = nil  // taken from the file on disk by its first verification
            try store.update(r)
            core.enqueue(WorkItem(token: token, kind: .verify(resource: id)))
            try updateVerifyingState(token)
            return true
        }
        // Hashed and checked as it streamed in, durable before the report: verified.
        metrics.verified(bytes: report.bytes)
        try store.markVerified(id: id, bytes: report.bytes, contentLength: report.contentLength, sha256: sha256)
        publishProgress(token, throttled: true)
        // Work still queued or out for the title: it cannot be complete yet (spares a query per segment).
        guard !core.hasWork(token) else { return false }
        try checkComplete(token)
        try verification?.finishIfDone(token)
        return true
    }

    /// A fetch failed: retry, re-resolve, suspend or fail the title, as the failure says (``FetchFailureVerdict``).
    func fetchFailed(_ id: Int64, _ failure: TaskFailure, lease: Lease) throws {
        let token = lease.item.token
        let verdict = FetchFailureVerdict.of(failure)
        if verdict == .waitForSpace {
            logger.warning("disk full: suspending the title until space returns", metadata: ["token": "\(token)"])
            return try suspend(
                token, reason: .diskFull, waitingHost: nil,
                error: TitleError(code: .diskFull, message: "\(failure.message); suspended until space returns"))
        }
        guard let r = try store.resource(id: id) else { return }
        if let r = try peer?.fetchFailed(r, failure) {
            return memory.retries.schedule(fetchItem(r), at: clock.monotonic())
        }
        switch verdict {
        case .waitForSpace:
            return
        case .refused(let goneFirst):
            if goneFirst, try recording?.retryWhileAvailable(r, reason: failure.message) == true { return }
            if goneFirst, try recording?.gap(r, reason: failure.message) == true { return }
            if try urlRefresh?.fileRefused(r, failure, lease: lease) == true { return }
            if try recording?.gap(r, reason: failure.message) == true { return }
            return try fail(token, TitleError(code: failure.code, message: failure.message))
        case .retry(let slowDown, let progressMade):
            if let slowDown {
                let t = clock.monotonic()
                core.slowDown(
                    host: slowDown.host, resumeAt: t + slowDown.resumeAfter, recoverAt: t + slowDown.recoverAfter)
                logger.info(
                    "origin asked to slow down",
                    metadata: ["host": "\(slowDown.host)", "retryAfter": "\(slowDown.resumeAfter)"])
            }
            var counted = r
            if progressMade {  // progress was made: the counters start over
                counted.attempts = 0
                if let host = failure.endpoint ?? HostProbe.endpoint(of: r.url) { network?.answered(host) }
            }
            try retry(
                counted, reason: failure.message, code: failure.code, retryAfter: failure.retryAfter,
                endpoint: failure.endpoint)
        }
    }
}
