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
            memory.crashSuspects.completed(lease.item)
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
        defer { journal.idle() }
        for lease in core.assign(now: t) {
            journal.handling(lease.item.token, "its \(lease.item.kind) task for a worker")
            do {
                if lease.item.kind.needsTitleSlot, core.waitingForSlot.contains(lease.item.token) {
                    try tookSlot(lease.item.token)
                }
                let built = lease.batch.isEmpty ? try work(for: lease.item, taskID: lease.taskID) : try batchWork(lease)
                guard let work = built else {
                    _ = core.complete(taskID: lease.taskID, from: lease.worker)
                    continue
                }
                let scope = work.workerKind == .integrity ? nil : try fetchScope(lease.item.token)
                let task = TaskAssignment(taskID: lease.taskID, token: lease.item.token, work: work, scope: scope)
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

    /// The work message for an item, read from the store; nil when the item no longer applies.
    private func work(for item: WorkItem, taskID: String) throws -> Work? {
        switch item.kind {
        case .fetch(let id):
            guard let r = try store.resource(id: id), let headers = try requestHeaders(item.token) else { return nil }
            return .fetch(fetchWork(r, headers: headers))
        case .verify(let id):
            guard let r = try store.resource(id: id), let bytes = r.bytes else { return nil }
            var work = VerifyWork(
                path: "\(r.token)/\(r.localPath)", expectedBytes: bytes, sha256: r.sha256,
                container: r.container, encrypted: r.encrypted)
            work.decryption = decryption(for: r)
            if let limit = verification?.readLimit(r.token) { work.bytesPerSecond = limit }
            return .verify(work)
        default:
            break
        }
        guard let title = try store.title(item.token) else { return nil }
        let headers = title.headers
        switch item.kind {
        case .resolve where title.peer != nil && !title.planned:
            return try peer?.resolveWork(title)
        case .resolve:
            let selection = title.selection
            var work = ResolveWork(url: title.url, headers: headers, selection: selection)
            if title.record != nil { work.live = true }
            return .resolve(work)
        case .reload(let position):
            guard title.isRecording,
                let r = try store.renditions(token: item.token).first(where: { $0.position == position })
            else { return nil }
            return .reload(ReloadWork(url: r.sourceURL, headers: headers))
        case .license:
            let keys = try store.keys(token: item.token)
            if title.record != nil, title.licenseTerms != nil, licensing?.isRenewing(item.token) != true {
                // A recording met new keys: fetch just those; the terms granted stay.
                return recording?.keysOnlyWork(title, keys: keys, taskID: taskID).map { .license($0) }
            }
            var work = LicenseWork(
                url: title.url, headers: headers, keyURIs: keys.map(\.uri),
                terms: title.requestedTerms,
                licenseURL: title.licenseURL, renewal: title.licenseTerms != nil)
            work.keys = keys.map {
                PlannedKey(uri: $0.uri, method: $0.method, keyFormat: $0.keyFormat, keyID: $0.keyID)
            }
            if title.manifestName != nil, let override = title.licenseURL,
                keys.contains(where: { $0.keyFormat == "org.w3.clearkey" })
            {
                // DASH Clear Key: `--license-url` names the Clear Key server (over the MPD's Laurl); the terms
                // are granted as requested.
                work.keys = work.keys?.map {
                    var k = $0
                    k.uri = override
                    return k
                }
                work.keyURIs = work.keys?.map(\.uri) ?? []
                work.licenseURL = nil
            }
            return .license(work)
        case .fetch, .verify:
            return nil
        }
    }

    /// A title's request headers, decoded once (they never change after submit); nil if the title is gone.
    func requestHeaders(_ token: String) throws -> [Header]? {
        try memory.caches.headers(token) {
            try store.titleHeaders(token).map { decode([Header].self, $0) ?? [] }
        }
    }

    /// What a title's fetches may do (hosts, addresses, where its headers go): sent with each of its tasks and
    /// with its streaming plays. Cached per title; ``rememberReach(_:_:_:)`` updates it.
    func fetchScope(_ token: String) throws -> FetchScope? {
        try memory.caches.scope(token) {
            try store.title(token).map {
                // Filled from a peer: the peer's URL is the source (its address class decides the reach, its host
                // gets the peer secret), and the origin's host keeps the submitted headers.
                var headerHosts = $0.headerHosts ?? []
                if $0.peer != nil, let origin = URL(string: $0.url)?.host?.lowercased() { headerHosts.append(origin) }
                var scope = FetchScope(
                    allowedHosts: options.allowedHosts, network: options.network, reach: $0.reach,
                    source: $0.peer?.manifestURL ?? $0.url, headerHosts: headerHosts)
                // Another box's answers are held to a pace (its drip cut, the worker's slot freed).
                if $0.peer != nil { scope.sourceLimits = options.answerPace }
                return scope
            }
        }
    }

    /// Stores the reach a title's first resolve found (its later fetches keep it, wherever its source moves).
    func rememberReach(_ token: String, _ title: TitleRecord, _ reach: AddressClass?) throws {
        guard let reach, title.reach == nil else { return }
        var updated = title
        // The source the resolve reached: a peer's gateway for a title filled from one (as in ``fetchScope(_:)``).
        let source = title.peer?.manifestURL ?? title.url
        updated.reach = options.network.acceptedReach(reported: reach, source: source)
        try store.update(updated)
        memory.caches.scopeChanged(token)
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
        // Connectivity is the host's, not the file's: failures in a row at a host (any file, no answer between)
        // spend the budget as well, so an outage is noticed in about a minute however many files are queued.
        var inARow = 0
        if code == .network, let host = endpoint ?? HostProbe.endpoint(of: r.url) {
            // Counts once the host has failed for a while: a blip of a second does not suspend anything.
            inARow = network?.failed(host) ?? 0
        } else if network?.anyFailing == true, let host = HostProbe.endpoint(of: r.url) {
            network?.answered(host)  // it answered (an HTTP status, a bad file): reachable
        }
        guard r.attempts < options.maxAttempts && inARow < options.maxAttempts else {
            if code == .network {
                // The title waits for the host instead of failing; the file's count starts over then.
                let count = max(r.attempts, inARow)
                r.attempts = 0
                try store.update(r)
                return try suspendForNetwork(
                    r.token, endpoint: endpoint ?? HostProbe.endpoint(of: r.url),
                    message: "\(reason) (\(count) attempts in a row failed)")
            }
            if try recording?.gap(r, reason: "\(reason) (after \(r.attempts) attempts)") == true { return }
            return try fail(
                r.token, TitleError(code: code, message: "\(r.url): \(reason) (after \(r.attempts) attempts)"))
        }
        memory.retries.schedule(fetchItem(r), at: clock.monotonic() + max(backoff(r.attempts), retryAfter ?? 0))
    }

    /// Exponential backoff with jitter: 0.5 s, 1 s, 2 s … capped at 30 s.
    func backoff(_ attempt: Int) -> Double {
        RetryQueue.backoff(attempt: attempt)
    }

    func decode<T: Decodable>(_ type: T.Type, _ json: String) -> T? {
        try? JSONDecoder().decode(T.self, from: Data(json.utf8))
    }
}
