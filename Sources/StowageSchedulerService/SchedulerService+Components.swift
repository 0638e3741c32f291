import Foundation
import StowageLicensing
import StowageProtocol
import StowageSchedulerCore
import StowageStore

extension SchedulerService {
    /// The registration list: one line a component (its order is the order requests are offered and ticks run).
    func makeComponents(_ context: ComponentContext) {
        components.register(
            QuotaComponent(
                context: context,
                policy: options.quota.map { EvictionPolicy(quota: $0, protect: options.evictProtect) },
                advisors: { [unowned self] in [self] + components.all.compactMap { $0 as? any EvictionAdvisor } }))
        components.register(RecordingComponent(context: context, pipeline: self, maxAttempts: options.maxAttempts))
        components.register(
            VerificationComponent(
                context: context, pipeline: self, scrubInterval: options.scrubInterval,
                scrubBytesPerSecond: options.scrubBytesPerSecond,
                isStaging: { [bundleJobs] in bundleJobs.isStaging($0) }
            ))
    }

    /// The pipeline's hooks into the quota: admitting a planned title, and an operator's resume of one waiting.
    var quota: QuotaComponent? { components.first(QuotaComponent.self) }
    /// The pipeline's hooks into recordings: their start, reloads, gaps, key-only tasks and `stop`.
    var recording: RecordingComponent? { components.first(RecordingComponent.self) }
    /// The pipeline's hooks into verification at rest: the results of its runs and the scrub's read rate.
    var verification: VerificationComponent? { components.first(VerificationComponent.self) }
}

/// The service as the components' narrow title interface (``TitleDesk``).
extension SchedulerService: TitleDesk {
    func submit(_ request: SubmitRequest, reuse: Bool) throws -> String {
        try submitTitle(request, reuse: reuse)
    }

    func suspend(_ token: String, reason: SuspendedReason, error: TitleError?) throws {
        try suspend(token, reason: reason, waitingHost: nil, error: error)
    }

    func status(_ token: String) throws -> TitleStatus {
        try currentStatus(token)
    }

    /// The one sink of title events: the event log, the components (the notification outbox among them), the
    /// subscribers. Inside a batch, all of it commits with the change it reports.
    func record(_ event: TitleHappening) throws {
        if let kind = event.kind {
            try store.appendEvent(
                token: event.token, kind: kind, detail: event.detail, at: Date(timeIntervalSince1970: clock.now()))
        }
        if let notice = event.notice { try notify(event.token, notice, detail: event.noticeDetail ?? event.detail) }
        try components.observe(event)
        if let published = event.published { publish(event.token, kind: published) }
    }
}

/// Until they are components of their own: plays protect what is being watched, the catalogue pins titles and marks
/// those leaving it.
extension SchedulerService: EvictionAdvisor {
    func advise(_ holdings: inout [EvictionPolicy.Holding], now: Double) {
        // Just after a start a play under way has not reported yet: then every title counts as played.
        let blind = !memory.plays.seesEveryPlay(now: now)
        let playing = memory.plays.playing(now: now)
        let (pinned, leaving) = (memory.catalog.pinnedTokens, memory.catalog.leavingTokens)
        for i in holdings.indices {
            let token = holdings[i].token
            holdings[i].playing = holdings[i].playing || blind || playing.contains(token)
            holdings[i].pinned = holdings[i].pinned || pinned.contains(token)
            holdings[i].leftCatalog = holdings[i].leftCatalog || leaving.contains(token)
        }
    }
}

/// The service as the pipeline stages' interface (``PipelineDesk``).
extension SchedulerService: PipelineDesk {
    func enqueue(_ item: WorkItem, at: Double?) {
        if let at { memory.retries.schedule(item, at: at) } else { core.enqueue(item) }
    }

    func retryTask(_ item: WorkItem, after failure: TaskFailure) -> Bool {
        let n = memory.retries.failed(item)
        guard failure.retryable && n < options.maxAttempts else {
            memory.retries.resetAttempts(item)
            return false
        }
        metrics.retried(failure.code)
        memory.retries.schedule(item, at: clock.monotonic() + max(backoff(n), failure.retryAfter ?? 0))
        return true
    }

    func leaveQueue(_ token: String) { _ = core.dropTitle(token) }

    func joinQueue(_ token: String, priority: Int, requestedAt: Double) {
        core.addTitle(token, priority: priority, requestedAt: requestedAt)
    }

    func hasWork(_ token: String) -> Bool { core.hasWork(token) }

    func licenseRefusal(_ title: TitleRecord) -> String? {
        guard let terms = terms(of: title) else { return nil }
        return LicensePolicy.refusal(
            terms, usage(of: title), now: clock.now(), clockRolledBack: clockRolledBack(for: title),
            startingPlay: false)
    }
}
