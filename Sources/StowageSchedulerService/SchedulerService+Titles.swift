import Foundation
import Logging
import StowageIntegrity
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

extension SchedulerService {
    /// Start-up: leases died with the previous process, so every unfinished title is queued again from
    /// what the store says. Verified files are never fetched again.
    func recover() throws {
        let reset = try store.recoverInterruptedWork()
        try store.fillSuspendedReasons()
        var resumed = 0
        for title in try store.titles() where !title.state.isFinal && title.state != .suspended {
            core.addTitle(title.token, priority: title.priority, requestedAt: title.requestedAt)
            try queueWork(for: title)
            resumed += 1
        }
        // Nothing was under way: no worker can still hold connections for it (see `SchedulerCore.unfinishedAtStart`).
        core.unfinishedAtStart = resumed > 0 || reset > 0
        try reportMissingFiles()
        logger.info("recovered", metadata: ["titles": "\(resumed)", "leasesReissued": "\(reset)"])
    }

    /// Completed titles whose offline copy is gone are reported once (an event and `status.error`);
    /// they never show as playable.
    private func reportMissingFiles() throws {
        for var title in try store.titles(state: .completed) where title.errorCode == nil {
            let entry = options.home.titleDirectory(title.token).appendingPathComponent(
                title.localPlaylist ?? title.manifestName ?? "master.m3u8")
            guard !FileManager.default.fileExists(atPath: entry.path) else { continue }
            let message =
                "files of the completed title are missing from \(options.home.titleDirectory(title.token).path)"
            title.errorCode = ErrorCode.integrity.rawValue
            title.errorMessage = message
            try store.update(title)
            try record(TitleHappening(title.token, kind: "unrecoverable", detail: message))
            logger.warning("unrecoverable at start-up", metadata: ["token": "\(title.token)", "reason": "\(message)"])
        }
    }

    /// Queues what a title needs next, from what the store says of it.
    func queueWork(for title: TitleRecord) throws {
        switch title.state {
        case .requested where !title.planned:
            core.enqueue(resolveItem(title))
        case .requested where try hasLicense(title):
            // Licensed, waiting for a "titles at once" slot.
            core.waitForSlot(title.token)
            try queueSegmentWork(title.token)
            try checkComplete(title.token)
        case .requested, .licensing:
            core.enqueue(WorkItem(token: title.token, kind: .license))
        case .downloading, .verifying:
            if title.record != nil { core.exemptFromSlots(title.token) }
            try queueSegmentWork(title.token)
            try recording?.queueMissingKeys(title)
            try checkComplete(title.token)
        case .recording:
            core.exemptFromSlots(title.token)
            try queueSegmentWork(title.token)
            try recording?.queueMissingKeys(title)
            try recording?.scheduleReloads(title)
        default:
            break
        }
    }

    func resolveItem(_ title: TitleRecord) -> WorkItem {
        // A title from a peer resolves the peer's manifest (its host) until it is planned.
        let source = title.planned ? title.url : title.peer?.url ?? title.url
        let host = URL(string: source)?.host
        if !title.planned, title.peer != nil, let host { core.peerHosts.insert(host) }
        return WorkItem(token: title.token, kind: .resolve, host: host)
    }

    func fetchItem(_ r: ResourceRecord) -> WorkItem {
        var hosts = URLHosts()
        let peer = self.peer?.fetch(r)
        let host = hosts.host(of: peer?.url ?? r.url)
        if peer != nil, let host { core.peerHosts.insert(host) }
        return WorkItem(token: r.token, kind: .fetch(resource: r.id!), host: host)
    }

    /// Queues a fetch for every pending resource and a verification for every fetched one.
    func queueSegmentWork(_ token: String) throws {
        let resources = try store.queuedResources(token: token)
        // Batches of small files go out together; big files go out one or a few per lease, so a worker that
        // dies loses little finished work (about 8 MiB per lease at most, from the title's estimate).
        memory.pacing.sized(
            token, estimate: try store.title(token)?.bytesEstimate, files: resources.count,
            limit: core.limits.fetchBatch)
        setFetchBatch(token)
        var hosts = URLHosts()  // each origin's URL parsed once
        let peer = try self.peer?.source(token)?.manifestURL  // files from a peer box go to its host
        for r in resources {
            switch r.state {
            case .pending, .fetching:
                let url = r.fromPeer ? peer ?? r.url : r.url
                let host = hosts.host(of: url)
                if r.fromPeer, peer != nil, let host { core.peerHosts.insert(host) }
                core.enqueue(WorkItem(token: token, kind: .fetch(resource: r.id), host: host))
            case .fetched, .verifying: core.enqueue(WorkItem(token: token, kind: .verify(resource: r.id)))
            case .verified, .gap: continue
            }
        }
    }

    /// Licensed: the title's segment work is queued; it shows `requested` (with its place in the queue) until
    /// it holds a "titles at once" slot, then `downloading` (see ``tookSlot(_:)``).
    func startDownloading(_ token: String) throws {
        if let title = try store.title(token), title.isRecording, let recording {
            // The recording starts (or carries on after a restart or a resume): its files, keys and reloads.
            try recording.begin(token)
            if let started = try store.title(token) { try queueWork(for: started) }
            return
        }
        try handle(.queued, of: token)
        core.waitForSlot(token)
        try queueSegmentWork(token)
        try checkComplete(token)
    }

    /// The first segment work of a waiting title went out: it holds a slot now.
    func tookSlot(_ token: String) throws {
        guard core.stopWaiting(token), var title = try store.title(token),
            title.state == .requested
        else { return }
        title.startedAt = title.startedAt ?? clock.now()
        try store.update(title)
        try handle(.tookSlot, of: token)
    }

    /// Whether a planned title holds every key and its terms (nothing left to license).
    func hasLicense(_ title: TitleRecord) throws -> Bool {
        try title.licenseTerms != nil && !store.keys(token: title.token).contains(where: { $0.wrapped == nil })
    }

    /// Moves a title by `event` (see ``TitleLifecycle``, the one table of transitions): its state, why it waits,
    /// its error and its end are written, then what the move calls for is carried out. An event its state does
    /// not take is refused with an error; the record stays as it was.
    func handle(_ event: TitleLifecycle.Event, of token: String) throws {
        guard var title = try store.title(token) else { return }
        var life = title.lifecycle
        let effects: [TitleLifecycle.Effect]
        do { effects = try life.handle(event, now: clock.now()) } catch {
            logger.error("refused a title transition", metadata: ["token": "\(token)", "reason": "\(error)"])
            throw error
        }
        title.take(life)
        try store.update(title)
        if case .badFilesFound(let error) = event {
            try record(TitleHappening(token, kind: nil, detail: error.message, notice: .verificationFailed))
        }
        for effect in effects {
            switch effect {
            case .stopWork, .forget:
                stopWork(token)
            case .removeFiles:
                try? FileManager.default.removeItem(at: options.home.titleDirectory(token))
                try store.resetResources(token: token)
            case .moved(let from, let to, let error):
                let move = "\(from.rawValue) -> \(to.rawValue)" + (error.map { ": \($0.message)" } ?? "")
                var metadata: Logger.Metadata = ["token": "\(token)", "from": "\(from.rawValue)"]
                if let error { metadata["error"] = "\(error.code.rawValue): \(error.message)" }
                logger.info("title \(to.rawValue)", metadata: metadata)
                try record(.state(token, move))
            case .waitsFor(let reason):
                try record(.state(token, "suspended (\(reason.rawValue))"))
            }
        }
    }

    /// `downloading` while anything is left to fetch; `verifying` once only checks remain.
    func updateVerifyingState(_ token: String) throws {
        if try store.titleState(token) == .recording { return }
        if try !store.hasResources(token: token, in: [.pending, .fetching]),
            try store.hasResources(token: token, in: [.fetched, .verifying])
        {
            try handle(.onlyChecksLeft, of: token)
        }
    }

    /// When every file is verified: write the offline playlists and complete the title.
    func checkComplete(_ token: String) throws {
        if try store.hasResources(token: token, in: [.pending, .fetching, .fetched, .verifying]) {
            try updateVerifyingState(token)
            return
        }
        guard try store.hasResources(token: token, in: [.verified]) else {
            return try recording?.endedEmpty(token) ?? ()
        }
        guard var title = try store.title(token), !title.state.isFinal, !title.isRecording,
            try recording?.waitsForKeys(title) != true
        else { return }
        do {
            title.localPlaylist = try store.writeOfflinePlaylists(title, in: options.home.titleDirectory(token))
        } catch {
            return try fail(
                token,
                TitleError(code: .io, message: "cannot write the offline playlists: \(error.localizedDescription)"))
        }
        // Every file is verified: the files the box writes itself come first (once): its subtitles as text, its
        // single file (`--file`); then it completes.
        let items = try boxWriters.flatMap { try $0.addFiles(title) }
        if !items.isEmpty {
            for item in items { core.enqueue(item) }
            try updateVerifyingState(token)
            return
        }
        try store.update(title)
        _ = core.dropTitle(token)
        try handle(.allVerified, of: token)
    }

    /// Ends a title with an error; work still out is called back.
    func fail(_ token: String, _ error: TitleError) throws {
        try handle(.failed(error), of: token)
    }

    /// Cancels a title: work called back, files removed, record kept.
    func cancel(_ token: String) throws {
        try handle(.canceled, of: token)
    }

    /// Pause: work in flight is called back (bytes on disk are kept), the title waits in `suspended`,
    /// also across restarts, until resumed by the operator.
    func pause(_ token: String) throws {
        try suspend(token, reason: .paused, waitingHost: nil, error: nil)
    }

    /// Suspends a title: work in flight is called back (bytes on disk are kept) and it waits, also across
    /// restarts: for `resume` (paused), for space (disk-full), for `waitingHost` to answer (network) or for its
    /// fill window to open (window).
    func suspend(_ token: String, reason: SuspendedReason, waitingHost: String?, error: TitleError?) throws {
        try handle(.suspended(reason, waitingHost: waitingHost, error: error), of: token)
    }

    /// Resume a suspended (or failed) title from what is on disk: verified files are kept. Outside its fill window
    /// it waits for the window instead.
    func resume(_ token: String) throws {
        guard let title = try store.title(token) else { return }
        let held = windowHolds(title)
        if held && title.state == .suspended {
            if title.suspendedReason != .window { try suspend(token, reason: .window, waitingHost: nil, error: nil) }
            return
        }
        // (A recording's keys met later are fetched beside it, queueMissingKeys: its terms are enough.)
        let facts = ResumeFacts(
            planned: title.planned,
            licensed: try hasLicense(title) || (title.record != nil && title.licenseTerms != nil),
            recording: title.isRecording)
        try store.resetAttempts(token: token)
        try handle(.resumed(facts), of: token)
        if held { return try suspend(token, reason: .window, waitingHost: nil, error: nil) }  // (a failed title)
        core.addTitle(token, priority: title.priority, requestedAt: title.requestedAt)
        guard let resumed = try store.title(token) else { return }
        try queueWork(for: resumed)
    }

    /// Delete: files and record are removed.
    func delete(_ token: String) throws {
        stopWork(token)
        try? FileManager.default.removeItem(at: options.home.titleDirectory(token))
        try store.delete(token: token)
        logger.info("title deleted", metadata: ["token": "\(token)"])
    }

    /// Calls back the title's work still out and forgets what every concern kept for it.
    private func stopWork(_ token: String) {
        for lease in core.dropTitle(token) {
            send(Array(lease.worker.utf8), FrameCodec.encode(.cancelTask, CancelTask(taskID: lease.taskID)))
        }
        memory.forget(token)
        messages.forget(token)
        components.forget(token)
    }
}
