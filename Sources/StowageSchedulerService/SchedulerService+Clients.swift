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
            try gate.authorize(request.operation, by: caller, now: clock.monotonic())
            let asked = ComponentRequest(operation: request.operation, caller: caller, identity: identity)
            components.see(asked)
            let answer = { try self.components.answer(asked) ?? self.answer(request.operation) }
            body = try request.operation.receiptID.map { try answerOnce(asked, id: $0, answer: answer) } ?? answer()
        } catch let error as TitleError {
            body = .error(error)
        } catch let refused as TitleLifecycle.IllegalTransition {
            body = .error(TitleError(code: .refused, message: "\(refused)"))
        } catch {
            body = .error(TitleError(code: .internal, message: "\(error)"))
        }
        send(identity, FrameCodec.encode(.reply, ClientReply(requestID: request.requestID, result: body)))
    }

    private func answer(_ operation: ClientOperation) throws -> ReplyBody {
        switch operation {
        case .submit(let submit):
            return .submitted(token: try submitTitle(submit))
        case .status(let token):
            guard let title = try store.title(token) else { throw try missing(token) }
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
            guard let title = try store.title(token) else { throw TitleError.noTitle(token) }
            if !title.state.isFinal || title.state == .completed { try cancel(token) }
            return .title(try currentStatus(token))
        case .workers:
            return .workers(core.workersShown(now: clock.monotonic()))
        case .pause(let token):
            return .title(try operate(.pause, on: token))
        case .resume(let token):
            return .title(try operate(.resume, on: token))
        case .stop(let token):
            return .title(try operate(.stop, on: token))
        case .delete(let token):
            guard try store.title(token) != nil else { throw TitleError.noTitle(token) }
            try delete(token)
            return .ok
        case .stats:
            return .stats(try stats())
        case .fetchScope(let url):
            // The rules the download workers get for a title from `url` (``TaskMessages``), before it is one.
            if let why = SourceURLRule.refusal(url, allowed: options.allowedHosts) {
                throw TitleError(code: .refused, message: why)
            }
            return .fetchScope(FetchScope(allowedHosts: options.allowedHosts, network: options.network, source: url))
        case .pin, .evictable, .renew, .license, .playable, .play, .key, .bookmarkAdd, .bookmarkRemove, .bookmarks,
            .deviceAdd, .devices, .deviceRevoke, .deviceSign, .devicePair, .pairRedeem, .authenticate, .playOn, .lookup,
            .peerManifest,
            .notifyStatus, .boxKey, .exportTitle, .importBundle, .bundleJob, .verify, .gc, .catalogApply,
            .catalogStatus, .played, .limits, .subscribe, .unsubscribe:
            throw TitleError(code: .internal, message: "no component answered \(operation)")
        }
    }

    /// A new title (or, with `reuse`, the unfinished or completed title of the same URL), checked by ``Submission``.
    func submitTitle(_ request: SubmitRequest, reuse: Bool = true) throws -> String {
        try peer?.check(request)
        let submit = try Submission(request, allowedHosts: options.allowedHosts)
        // A recording of a URL recorded before is a new title (a stream is recorded again); one in progress is
        // the same title.
        if reuse,
            let existing = try request.record == nil
                ? store.liveTitle(url: request.url) : store.recordingInProgress(url: request.url)
        {
            let differences = submit.differences(from: existing)
            guard differences.isEmpty else { throw Submission.conflict(existing, differences) }
            return try reuseTitle(existing, for: request)
        }
        let token = Self.newToken()
        var stored = try submit.newTitle(token: token, now: clock.now())
        if let id = request.id, let other = try store.title(externalID: id) {
            throw TitleError(
                code: .refused, message: "id '\(id)' is already title \(other.token) (`stowctl delete` it first)")
        }
        stored.operatorKeys = try licensing?.wrapOperatorKeys(request.keys, token: token)
        stored.peer = try request.peer.map { source in
            guard let peer else { throw TitleError(code: .internal, message: "peer fill is not registered") }
            return try peer.wrapSecret(source, token: token)
        }
        try store.insert(stored)
        logger.info("title requested", metadata: ["token": "\(token)", "url": "\(request.url)"])
        // Outside its fill window it waits at once: not even its playlist (or a peer's manifest) is fetched.
        let held = windowHolds(stored)
        try record(
            TitleHappening(
                token, kind: "state", detail: "requested \(request.url)", notice: .state, noticeDetail: "requested",
                published: held ? nil : "state"))
        if held { return try holdForWindow(token) }
        core.addTitle(token, priority: request.priority, requestedAt: stored.requestedAt)
        core.enqueue(resolveItem(stored))
        return token
    }

    /// A submit of a URL whose title is there: `--now` again frees it from the windows; a preloaded title's
    /// download starts (when its window allows).
    private func reuseTitle(_ title: TitleRecord, for request: SubmitRequest) throws -> String {
        var existing = title
        logger.info("submit reuses the existing title", metadata: ["token": "\(existing.token)"])
        if request.now == true && !existing.fetchNow {
            existing.fetchNow = true  // `--now` again: the windows no longer hold it
            try store.update(existing)
            if existing.state == .suspended && existing.suspendedReason == .window { try resume(existing.token) }
        }
        if existing.state == .licensed && !request.preloadOnly {
            existing.preloadOnly = false
            try store.update(existing)
            if windowHolds(existing) { return try holdForWindow(existing.token) }
            core.addTitle(existing.token, priority: existing.priority, requestedAt: existing.requestedAt)
            try startDownloading(existing.token)
        }
        return existing.token
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
