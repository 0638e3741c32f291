import Foundation
import StowageLicensing
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

extension SchedulerService {
    func handleWorker(_ identity: [UInt8], _ envelope: Envelope) throws {
        let id = String(decoding: identity, as: UTF8.self)
        let t = clock.monotonic()
        switch envelope.command {
        case .register:
            let info = try FrameCodec.body(Register.self, from: envelope)
            guard info.capacity > 0, info.capacity <= 1_000 else {
                throw ProtocolError(.badBody, "REGISTER capacity \(info.capacity) is outside 1…1000")
            }
            for item in core.removeWorker(id) {
                logger.info("re-issuing after re-registration", metadata: ["item": "\(item)"])
            }
            core.register(id: id, info: info, now: t)
            send(
                identity,
                FrameCodec.encode(
                    .registered, Registered(workerID: id, heartbeatMilliseconds: WireProtocol.heartbeatMilliseconds)))
            logger.info(
                "worker registered",
                metadata: ["worker": "\(id)", "kind": "\(info.kind.rawValue)", "capacity": "\(info.capacity)"])
        case .heartbeat:
            if !core.touch(id, now: t) { askToRegisterAgain(identity, id, now: t) }
        case .bye:
            let requeued = core.removeWorker(id)
            logger.info("worker left", metadata: ["worker": "\(id)", "requeued": "\(requeued.count)"])
        case .progress:
            guard core.touch(id, now: t) else {
                askToRegisterAgain(identity, id, now: t)
                return
            }
            let p = try FrameCodec.body(TaskProgress.self, from: envelope)
            if let problem = p.numberProblem { throw ProtocolError(.badBody, "\(problem)") }
            guard let lease = core.leases[p.taskID], lease.worker == id else { return }
            memory.progress.progress(lease.item.token, task: p.taskID, bytes: p.bytes)
            publishProgress(lease.item.token, throttled: true)
        case .result:
            guard core.touch(id, now: t) else {
                logger.info("ignored result from unregistered worker", metadata: ["worker": "\(id)"])
                askToRegisterAgain(identity, id, now: t)
                return
            }
            let result = try FrameCodec.body(TaskResult.self, from: envelope)
            if let problem = result.numberProblem { throw ProtocolError(.badBody, "\(problem)") }
            guard let lease = core.complete(taskID: result.taskID, from: id) else {
                logger.info("ignored stale result", metadata: ["task": "\(result.taskID)", "worker": "\(id)"])
                return
            }
            memory.progress.finished(lease.item.token, task: lease.taskID)
            crash?.completed(lease.item)
            notePace(of: lease)
            journal.handling(lease.item.token, "the result of its \(lease.item.kind) task")
            try apply(result.outcome, of: lease, sent: memory.pacing.takeBatch(lease.taskID))
        default:
            break
        }
    }

    /// Tells a worker the scheduler does not know (declared dead, or from before a restart) to register again: once,
    /// not for each of the heartbeats, progress reports and results it had queued, since every REREGISTER makes it
    /// abandon its tasks and register anew, taking back work handed to it in between.
    private func askToRegisterAgain(_ identity: [UInt8], _ id: String, now t: Double) {
        guard memory.registerAgain.shouldLog(id, now: t) else { return }
        send(identity, FrameCodec.encode(.reregister))
    }

    /// Hands out work and sends it.
    func dispatch(now t: Double) {
        // A term that ended (a lease lapsed, a write fenced) hands nothing out, whatever it had queued.
        guard mayServe() else { return }
        defer { journal.idle() }
        for lease in core.assign(now: t) {
            // A write of this turn fenced: the term is over, and so is handing out (the service is thrown away).
            guard mayServe() else { return }
            journal.handling(lease.item.token, "its \(lease.item.kind) task for a worker")
            do {
                if lease.item.kind.needsTitleSlot, core.waitingForSlot.contains(lease.item.token) {
                    try tookSlot(lease.item.token)
                }
                let built =
                    lease.batch.isEmpty
                    ? try messages.work(for: lease.item, taskID: lease.taskID) : try batchWork(lease)
                guard let work = built else {
                    _ = core.complete(taskID: lease.taskID, from: lease.worker)
                    continue
                }
                let scope = work.workerKind == .integrity ? nil : try messages.fetchScope(lease.item.token)
                let task = TaskAssignment(
                    taskID: lease.taskID, token: lease.item.token, work: work, scope: scope, term: term)
                if !send(Array(lease.worker.utf8), FrameCodec.encode(.task, task)) {
                    _ = core.complete(taskID: lease.taskID, from: lease.worker)
                    _ = memory.pacing.takeBatch(lease.taskID)
                    for item in lease.items.reversed() { core.enqueue(item, front: true) }
                    core.removeWorker(lease.worker)
                }
            } catch {
                logger.error("cannot build task", metadata: ["item": "\(lease.item)", "error": "\(error)"])
                _ = core.complete(taskID: lease.taskID, from: lease.worker)
            }
        }
    }

    /// Counts a failed attempt and queues the resource again, or fails the title past the limit.
    func retry(
        _ resource: ResourceRecord, reason: String, code: ErrorCode, retryAfter: Double? = nil,
        endpoint: String? = nil
    ) throws {
        var r = resource
        r.attempts += 1
        r.lastError = reason
        r.state = .pending
        try store.update(r)
        metrics.retried(code)
        // Failures in a row at the file's host spend the budget as well (``FileRetryVerdict``).
        let inARow = network?.attemptFailed(code: code, endpoint: endpoint, url: r.url) ?? 0
        switch FileRetryVerdict.of(
            attempts: r.attempts, inARow: inARow, maxAttempts: options.maxAttempts, code: code, retryAfter: retryAfter)
        {
        case .again(let delay):
            memory.retries.schedule(fetchItem(r), at: clock.monotonic() + delay)
            if code == .network {
                network?.retrying(
                    r.token, host: endpoint ?? HostProbe.endpoint(of: r.url), message: reason, attempts: r.attempts,
                    in: delay)
            }
        case .waitForHost(let count):
            // The title waits for the host instead of failing; the file's count starts over then.
            r.attempts = 0
            try store.update(r)
            try suspendForNetwork(
                r.token, endpoint: endpoint ?? HostProbe.endpoint(of: r.url),
                message: "\(reason) (\(count) attempts in a row failed)")
        case .giveUp:
            if try recording?.gap(r, reason: "\(reason) (after \(r.attempts) attempts)") == true { return }
            // The file's URL once: a worker's message often starts with it already.
            let said = reason.hasPrefix(r.url) ? reason : "\(r.url): \(reason)"
            try fail(r.token, TitleError(code: code, message: "\(said) (after \(r.attempts) attempts)"))
        }
    }
}
