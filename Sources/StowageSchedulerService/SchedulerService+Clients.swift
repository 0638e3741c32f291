import Foundation
import StowageBundle
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

extension SchedulerService {
    func handleClient(_ identity: [UInt8], _ envelope: Envelope, caller: Caller) throws {
        let request = try FrameCodec.body(ClientRequest.self, from: envelope)
        let body: ReplyBody
        do {
            try authorize(request.operation, by: caller)
            body = try answer(request.operation, from: identity)
        } catch let error as TitleError {
            body = .error(error)
        } catch {
            body = .error(TitleError(code: .internal, message: "\(error)"))
        }
        send(identity, FrameCodec.encode(.reply, ClientReply(requestID: request.requestID, result: body)))
    }

    private func answer(_ operation: ClientOperation, from identity: [UInt8]) throws -> ReplyBody {
        notePlay(operation)
        switch operation {
        case .submit(let submit):
            return .submitted(token: try submitTitle(submit))
        case .status(let token):
            guard let title = try store.title(token) else { throw unknownTitle(token) }
            return .title(try status(of: title, progress: store.progress(token: token)))
        case .list(let state, let after, let limit):
            guard let limit else {
                let progress = try store.progressByTitle()
                return .titles(
                    try store.titles(state: state).map { try status(of: $0, progress: progress[$0.token] ?? .init()) })
            }
            // A page: its titles' progress only, so every page answers in about the same time however many
            // titles the store holds.
            return .titles(
                try store.titles(state: state, after: after, limit: min(limit, 10_000)).map {
                    try status(of: $0, progress: store.progress(token: $0.token))
                })
        case .cancel(let token):
            guard let title = try store.title(token) else { throw unknownTitle(token) }
            if !title.state.isFinal || title.state == .completed { try cancel(token) }
            return .title(try currentStatus(token))
        case .workers:
            let t = clock.monotonic()
            return .workers(
                core.workers.values.sorted { $0.id < $1.id }.map { w in
                    WorkerInfo(
                        id: w.id, kind: w.info.kind, host: w.info.host, pid: w.info.pid, capacity: w.info.capacity,
                        tasksInHand: w.leases.count, lastSeenSecondsAgo: ((t - w.lastSeen) * 1000).rounded() / 1000,
                        alive: t - w.lastSeen <= core.workerTimeout)
                })
        case .subscribe(let tokens):
            if memory.progress.subscribers.subscribe(identity, to: tokens, now: clock.monotonic()) {
                let titles = tokens.isEmpty ? try store.titles() : try tokens.compactMap { try store.title($0) }
                for title in titles { publish(title.token, kind: "snapshot", to: [identity]) }
            }
            return .ok
        case .unsubscribe:
            memory.progress.subscribers.remove(identity)
            return .ok
        case .pause(let token):
            guard let title = try store.title(token) else { throw unknownTitle(token) }
            if isRecording(title) {
                throw TitleError(
                    code: .refused,
                    message: "title \(token) is a recording: it cannot be paused, because the live window moves on "
                        + "while it waits and what leaves it is lost. `stowctl stop \(token)` ends the recording and "
                        + "keeps what it recorded; `stowctl cancel` drops it")
            }
            guard !title.state.isFinal else {
                throw TitleError(
                    code: .refused,
                    message: "title \(token) is \(title.state.rawValue): only unfinished titles can be paused")
            }
            // A title waiting for the network or for space is paused too: it then waits for `resume` only.
            if title.state != .suspended || title.suspendedReason != .paused { try pause(token) }
            return .title(try currentStatus(token))
        case .resume(let token):
            guard let title = try store.title(token) else { throw unknownTitle(token) }
            guard [.suspended, .failed].contains(title.state) else {
                throw TitleError(
                    code: .refused,
                    message: "title \(token) is \(title.state.rawValue): only suspended or failed titles can be resumed"
                )
            }
            if title.suspendedReason == .quota, let reason = try quotaRefusal(token, need: title.bytesEstimate ?? 0) {
                throw TitleError(code: .refused, message: "title \(token) waits for room under the quota: \(reason)")
            }
            try resume(token)
            return .title(try currentStatus(token))
        case .stop(let token):
            guard let title = try store.title(token) else { throw unknownTitle(token) }
            guard isRecording(title), !title.state.isFinal else {
                throw TitleError(
                    code: .refused,
                    message: "title \(token) is \(title.state.rawValue)"
                        + (title.record == nil ? ", not a recording" : " and its recording has ended")
                        + ": only a recording in progress can be stopped")
            }
            try endRecording(token, reason: "stopped by the operator")
            return .title(try currentStatus(token))
        case .delete(let token):
            guard try store.title(token) != nil else { throw unknownTitle(token) }
            try delete(token)
            return .ok
        case .limits(let change):
            if let change { try applyLimits(change) }
            return .limits(limitsInForce())
        case .renew(let token, let terms, let licenseURL):
            try renew(token, terms: terms, licenseURL: licenseURL)
            return .title(try currentStatus(token))
        case .license(let token):
            return .license(try licenseReport(token))
        case .played(let token, let seconds):
            guard var title = try store.title(token) else { throw unknownTitle(token) }
            guard seconds.isFinite, seconds >= 0, seconds < 86_400 else {
                throw TitleError(code: .refused, message: "played seconds out of range")
            }
            title.playedSeconds += seconds
            title.lastPlayedAt = clock.now()
            try store.update(title)
            return .ok
        case .bookmarkAdd(let token, let position, let label):
            guard try store.title(token) != nil else { throw unknownTitle(token) }
            guard position.isFinite, position >= 0 else {
                throw TitleError(code: .refused, message: "a bookmark position is seconds from the start (0 or more)")
            }
            try store.putBookmark(
                BookmarkRecord(
                    token: token, kind: .user, position: position,
                    label: String(label.prefix(200))))
            return .bookmarks(try bookmarks(token))
        case .bookmarkRemove(let token, let position):
            guard try store.title(token) != nil else { throw unknownTitle(token) }
            guard try store.removeBookmark(token: token, position: position) else {
                let index = try store.bookmarks(token: token).contains { $0.kind == .index && $0.position == position }
                throw TitleError(
                    code: .refused,
                    message: index
                        ? "the bookmark at \(position) s came with the source and cannot be removed"
                        : "no user bookmark at \(position) s")
            }
            return .bookmarks(try bookmarks(token))
        case .bookmarks(let token):
            guard try store.title(token) != nil else { throw unknownTitle(token) }
            return .bookmarks(try bookmarks(token))
        case .verify(let token, let repair):
            try startVerify(token, repair: repair)
            return .title(try currentStatus(token))
        case .gc:
            return .removed(try collectGarbage())
        case .stats:
            return .stats(try stats())
        case .boxKey:
            return .boxKey(box.publicKey.fileText())
        case .exportTitle(let request):
            return .bundleJob(try startExport(request))
        case .importBundle(let request):
            return .bundleJob(try startImport(request))
        case .bundleJob(let id):
            guard let job = bundleJobs.job(id) else {
                throw TitleError(
                    code: .notFound, message: "no export or import '\(id.prefix(64))' (the scheduler restarted?)")
            }
            return .bundleJob(job)
        case .playable(let token):
            guard let title = try store.title(token) else { throw unknownTitle(token) }
            return .play(try withServingDetails(playability(title, startingPlay: true), of: title))
        case .play(let token):
            return .play(try authorizePlay(token))
        case .key(let token, let index):
            return .key(try releaseKey(token, index: index))
        case .deviceAdd(let name, let peer):
            return .deviceSecret(try addDevice(name, peer: peer == true))
        case .devices:
            return .devices(try deviceList())
        case .deviceRevoke(let name):
            try revokeDevice(name)
            return .ok
        case .deviceSign(let name, let path, let seconds):
            return .signedPath(try signPath(device: name, path: path, seconds: seconds))
        case .authenticate(let credential):
            return .principal(try authenticate(credential))
        case .playOn(let token, let device):
            return .play(try authorizePlay(token, device: device))
        case .lookup(let id, let url):
            let title = try lookup(id: id, url: url)
            return .title(try status(of: title, progress: store.progress(token: title.token)))
        case .catalogApply(let document, let signature):
            return .catalog(try applyCatalog(document: document, signature: signature))
        case .catalogStatus:
            return .catalog(try catalogReport())
        case .notifyStatus:
            return .notify(try notifyReport())
        case .peerManifest(let token):
            return .peerManifest(try peerManifest(token))
        case .pin(let token, let pinned):
            return .title(try pin(token, pinned))
        case .evictable:
            return .titles(try evictionOrder())
        }
    }

    /// A play authorised, a key handed out or play time reported: the title is being played (see ``PlayActivity``).
    private func notePlay(_ operation: ClientOperation) {
        switch operation {
        case .play(let token), .playOn(let token, _), .played(let token, _), .key(let token, _):
            memory.plays.saw(token, now: clock.monotonic())
        default:
            break
        }
    }

    private func bookmarks(_ token: String) throws -> [Bookmark] {
        try store.bookmarks(token: token).map { Bookmark(position: $0.position, label: $0.label, kind: $0.kind) }
    }

    /// A new title (or, with `reuse`, the unfinished or completed title of the same URL).
    func submitTitle(_ submit: SubmitRequest, reuse: Bool = true) throws -> String {
        try checkPeer(submit)
        if let problem = submit.numberProblem { throw TitleError(code: .refused, message: "\(problem)") }
        guard SubmitRequest.priorityRange.contains(submit.priority) else {
            throw TitleError(code: .refused, message: "priority \(submit.priority) is outside -1000000...1000000")
        }
        if let why = sourceURLRefusal(submit.url) { throw TitleError(code: .refused, message: why) }
        if let allowed = options.allowedHosts {
            for url in [submit.posterURL, submit.licenseURL].compactMap({ $0 }) {
                if let reason = allowed.refusal(url) {
                    throw TitleError(code: .refused, message: reason + " (stowage-scheduler --allow-hosts)")
                }
            }
        }
        // A recording of a URL recorded before is a new title (a stream is recorded again); one in progress is
        // the same title.
        let reusable =
            !reuse
            ? nil
            : submit.record == nil
                ? try store.liveTitle(url: submit.url) : try store.recordingInProgress(url: submit.url)
        let window = try submit.window.map { text in
            do { return try FillSchedule(parsing: text).description } catch {
                throw TitleError(code: .refused, message: "--window \(error)")
            }
        }
        if var existing = reusable {
            logger.info("submit reuses the existing title", metadata: ["token": "\(existing.token)"])
            if submit.now == true && !existing.fetchNow {
                existing.fetchNow = true  // `--now` again: the windows no longer hold it
                try store.update(existing)
                if existing.state == .suspended && existing.suspendedReason == .window { try resume(existing.token) }
            }
            if existing.state == .licensed && !submit.preloadOnly {
                // Preloaded: the license is there; now download (when its window allows).
                existing.preloadOnly = false
                try store.update(existing)
                if windowHolds(existing) { return try holdForWindow(existing.token) }
                core.addTitle(existing.token, priority: existing.priority, requestedAt: existing.requestedAt)
                try startDownloading(existing.token)
            }
            return existing.token
        }
        let token = Self.newToken()
        let record = TitleRecord(
            token: token, url: submit.url, name: submit.name, state: .requested, priority: submit.priority,
            selection: submit.selection,
            headers: submit.headers, requestedAt: clock.now())
        var stored = record
        stored.requestedTerms = submit.terms
        stored.licenseURL = submit.licenseURL
        stored.preloadOnly = submit.preloadOnly
        stored.posterURL = submit.posterURL
        stored.allowDeviceDRM = submit.allowDeviceDRM ?? false
        stored.operatorKeys = try wrapOperatorKeys(submit.keys, token: token)
        stored.fillWindow = window
        stored.fetchNow = submit.now ?? false
        if let hosts = submit.headerHosts, !hosts.isEmpty {
            if let bad = hosts.first(where: { $0.isEmpty || $0.contains(where: { "/:@ ?#".contains($0) }) }) {
                throw TitleError(code: .refused, message: "--header-host '\(bad.prefix(100))' is not a host name")
            }
            stored.headerHosts = hosts.map { $0.lowercased() }
        }
        if let name = submit.name, let why = TitleLabels.nameProblem(name) {
            throw TitleError(code: .refused, message: "--name \(why)")
        }
        if let id = submit.id {
            if let why = TitleLabels.idProblem(id) { throw TitleError(code: .refused, message: "--id \(why)") }
            if let other = try store.title(externalID: id) {
                throw TitleError(
                    code: .refused, message: "id '\(id)' is already title \(other.token) (`stowctl delete` it first)")
            }
            stored.externalID = id
        }
        if let record = submit.record {
            if let d = record.durationSeconds, !(d.isFinite && d > 0) {
                throw TitleError(code: .refused, message: "--duration must be a positive duration")
            }
            stored.record = record
        }
        stored.peer = try submit.peer.map { try wrapPeerSecret($0, token: token) }
        try store.insert(stored)
        try appendEvent(token: token, kind: "state", detail: "requested \(submit.url)")
        try notify(token, .state, detail: "requested")
        logger.info("title requested", metadata: ["token": "\(token)", "url": "\(submit.url)"])
        // Outside its fill window it waits at once: not even its playlist (or a peer's manifest) is fetched.
        if windowHolds(stored) { return try holdForWindow(token) }
        core.addTitle(token, priority: submit.priority, requestedAt: record.requestedAt)
        core.enqueue(resolveItem(record))
        publish(token, kind: "state")
        return token
    }

    /// A title submitted outside its fill window waits for it (suspended, `window`).
    private func holdForWindow(_ token: String) throws -> String {
        try suspend(token, reason: .window, waitingHost: nil, error: nil)
        return token
    }

    /// 16 lowercase hex digits (``TitleToken``): unguessable enough for a local name, safe as a folder name.
    static func newToken() -> String { TitleToken.make() }
}

extension TitleError: Error {}
