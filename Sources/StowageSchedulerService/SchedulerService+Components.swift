import Foundation
import StowageLicensing
import StowageProtocol
import StowageSchedulerCore
import StowageStore

extension SchedulerService {
    /// The registration list: one line a component (its order is the order requests are offered and ticks run).
    func makeComponents(_ context: ComponentContext) throws {
        let limits = try LimitsComponent(
            context: context, overrides: options.limitOverrides, schedule: options.bandwidthSchedule,
            timeZone: options.timeZone, heartbeat: Self.heartbeat, setCore: { [unowned self] in core.limits = $0 },
            downloaders: { [unowned self] in core.workers.values.filter { $0.info.kind == .download }.map(\.id) },
            sendShare: { [unowned self] in
                send(Array($0.utf8), FrameCodec.encode(.limits, WorkerLimits(bytesPerSecond: $1)))
            })
        components.register(limits)
        let clockGuard = ClockGuardComponent(context: context)
        components.register(clockGuard)
        components.register(CrashComponent(context: context, previousCrash: journal.previousCrash))
        components.register(DiskComponent(context: context, cushion: { [unowned limits] in limits.diskCushion }))
        components.register(
            NetworkComponent(
                context: context, giveUpAfter: options.giveUpAfter,
                renew: { [unowned self] in try? licensing?.renew($0, terms: nil, licenseURL: nil) }))
        components.register(
            PlaybackComponent(
                context: context, vault: vault,
                clockRolledBack: { [unowned clockGuard] in clockGuard.rolledBack(for: $0) },
                fetchScope: { [unowned self] in try messages.fetchScope($0) }))
        components.register(
            LicensingComponent(
                context: context, pipeline: self, autoRenewBefore: options.autoRenewBefore,
                epoch: { [unowned clockGuard] in clockGuard.epoch },
                assumedRate: { [unowned limits] in limits.bandwidth },
                playability: { [unowned self] in
                    guard let playback else { throw TitleError(code: .internal, message: "no playback component") }
                    return try playback.playability($0, startingPlay: true)
                }))
        let plays = PlaysComponent(context: context)
        components.register(plays)
        components.register(CatalogComponent(context: context, options: options.catalog, plays: plays))
        components.register(
            QuotaComponent(
                context: context,
                policy: options.quota.map { EvictionPolicy(quota: $0, protect: options.evictProtect) },
                advisors: { [unowned self] in components.all.compactMap { $0 as? any EvictionAdvisor } }))
        components.register(
            PeerComponent(
                context: context, vault: vault, allowedHosts: options.allowedHosts,
                storedPlan: { [unowned self] in try store.storedPlan($0, resources: $1) }))
        components.register(
            FillWindowComponent(context: context, box: options.fillWindow, timeZone: options.timeZone))
        components.register(DevicesComponent(context: context, vault: vault))
        components.register(NotifyComponent(context: context, options: options.notify))
        components.register(
            BundlesComponent(
                context: context, vault: vault, box: box, allowedHosts: options.allowedHosts,
                claimants: { [unowned self] in components.all.compactMap { $0 as? any TitleIDClaimant } }))
        components.register(URLRefreshComponent(context: context, pipeline: self))
        components.register(PathwaysComponent(context: context))
        components.register(RecordingComponent(context: context, pipeline: self, maxAttempts: options.maxAttempts))
        components.register(
            VerificationComponent(
                context: context, pipeline: self, scrubInterval: options.scrubInterval,
                scrubBytesPerSecond: options.scrubBytesPerSecond,
                isStaging: { [unowned self] in bundles?.isStaging($0) == true }
            ))
        components.register(SubtitlesComponent(context: context))
        components.register(SingleFileComponent(context: context, quota: { [unowned self] in quota }))
        // Last: subscribers hear of an event once every other component has taken it in.
        components.register(
            SubscribersComponent(
                context: context, heartbeat: Self.heartbeat, send: { [unowned self] in send($0, $1) }))
    }

    /// The clock guard's epoch: a title adopted now counts its license from it.
    var clockGuard: ClockGuardComponent? { components.first(ClockGuardComponent.self) }

    /// Who hears about titles: the pipeline's progress events, a client that cannot be reached.
    var subscribers: SubscribersComponent? { components.first(SubscribersComponent.self) }

    /// Titles whose input crashes the scheduler or its workers: failed at start, or when their task kills workers.
    var crash: CrashComponent? { components.first(CrashComponent.self) }

    /// Whether a title may be played now (status, the devices' plays).
    var playback: PlaybackComponent? { components.first(PlaybackComponent.self) }

    /// Connectivity: fetches' failures and answers counted per host, titles and renewals waiting for a host.
    var network: NetworkComponent? { components.first(NetworkComponent.self) }

    func suspendForNetwork(_ token: String, endpoint: String?, message: String) throws {
        try network?.suspend(token, endpoint: endpoint, message: message)
    }

    func renewalWaitsForNetwork(_ token: String, endpoint: String) throws {
        try network?.renewalWaits(token, endpoint: endpoint)
    }

    /// Whether a planned title fits on the disk.
    var disk: DiskComponent? { components.first(DiskComponent.self) }

    /// The pipeline's hooks into licensing: a grant or a failure of a license task, operator keys at submit and plan.
    var licensing: LicensingComponent? { components.first(LicensingComponent.self) }

    /// A license task that failed (a first license, a renewal, a recording's new keys): a key URL refused for its
    /// signature is re-resolved first; then licensing decides.
    func licenseFailed(_ failure: TaskFailure, lease: Lease) throws {
        if try urlRefresh?.keysRefused(lease.item.token, failure) == true { return }
        try licensing?.licenseFailed(failure, item: lease.item)
    }

    /// Signed URLs that expire: a refused file or key re-resolves the title; a fetched file says its URLs work.
    var urlRefresh: URLRefreshComponent? { components.first(URLRefreshComponent.self) }
    var pathways: PathwaysComponent? { components.first(PathwaysComponent.self) }

    /// The pipeline's hooks into the quota: admitting a planned title, and an operator's resume of one waiting.
    var quota: QuotaComponent? { components.first(QuotaComponent.self) }

    /// The pipeline's hooks into peer fill: a submit's peer checked and its secret wrapped, the work of a resolve
    /// or fetch from the peer, what a peer's plan or failed answer means.
    var peer: PeerComponent? { components.first(PeerComponent.self) }

    /// Whether a title may not fetch now (the fill windows): a submitted or resumed title then waits for its window.
    func windowHolds(_ title: TitleRecord) -> Bool {
        components.first(FillWindowComponent.self)?.holds(title) ?? false
    }

    /// `gc`'s hook into bundles: an import's staging folder is not garbage while the import runs.
    var bundles: BundlesComponent? { components.first(BundlesComponent.self) }

    /// The pipeline's hooks into recordings: their start, reloads, gaps, key-only tasks and `stop`.
    var recording: RecordingComponent? { components.first(RecordingComponent.self) }
    /// The pipeline's hooks into verification at rest: the results of its runs and the scrub's read rate.
    var verification: VerificationComponent? { components.first(VerificationComponent.self) }
    /// The components that write files of a title themselves when it completes (its subtitles, its single file).
    var boxWriters: [any BoxWrittenFiles] { components.all.compactMap { $0 as? any BoxWrittenFiles } }

    /// An import's check that the catalogue does not fill the id a bundle brings.
    var catalog: CatalogComponent? { components.first(CatalogComponent.self) }
}

/// The service as the components' narrow title interface (``TitleDesk``).
extension SchedulerService: TitleDesk {
    func submit(_ request: SubmitRequest, reuse: Bool) throws -> String {
        try submitTitle(request, reuse: reuse)
    }

    func status(_ token: String) throws -> TitleStatus {
        try currentStatus(token)
    }

    func authorizePlay(_ token: String) throws -> PlayAuthorization {
        guard let playback else { throw TitleError(code: .internal, message: "no playback component") }
        return try playback.authorizePlay(token)
    }

    func adopt(_ title: TitleRecord, fill: () throws -> Void, last: () throws -> Void) throws {
        var title = title
        title.licenseEpoch = clockGuard?.epoch ?? 0
        var failure: (any Error)?
        try inOneTransaction {
            do {
                try store.insert(title)
                try fill()
                try handle(.allVerified, of: title.token)
                try last()
            } catch {
                // The transaction commits even so: the title is deleted in its place.
                failure = error
                try? store.delete(token: title.token)
            }
        }
        if let failure { throw failure }
    }

    /// The one sink of title events: the event log, the components (the notification outbox among them: it stores
    /// what has a notice; the subscribers hear what is published). Inside a batch, all of it commits with the change
    /// it reports.
    func record(_ event: TitleHappening) throws {
        if let kind = event.kind {
            try store.appendEvent(
                token: event.token, kind: kind, detail: event.detail, at: Date(timeIntervalSince1970: clock.now()))
        }
        try components.observe(event)
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
        let delay = max(RetryQueue.backoff(attempt: n), failure.retryAfter ?? 0)
        memory.retries.schedule(item, at: clock.monotonic() + delay)
        if failure.code == .network {
            let source = (try? store.title(item.token))??.url
            let host = failure.endpoint ?? source.flatMap(HostProbe.endpoint(of:))
            network?.retrying(item.token, host: host, message: failure.message, attempts: n, in: delay)
        }
        return true
    }

    func leaveQueue(_ token: String) { _ = core.dropTitle(token) }

    func enqueueFirst(_ item: WorkItem) { core.enqueue(item, front: true) }

    func enqueueRenewal(_ token: String, priority: Int, requestedAt: Double) {
        core.addTitle(token, priority: priority, requestedAt: requestedAt)
        core.enqueue(WorkItem(token: token, kind: .license))
    }

    func joinQueue(_ token: String, priority: Int, requestedAt: Double) {
        core.addTitle(token, priority: priority, requestedAt: requestedAt)
    }

    func hasWork(_ token: String) -> Bool { core.hasWork(token) }

    func licenseRefusal(_ title: TitleRecord) -> String? {
        guard let terms = title.licenseTerms else { return nil }
        return LicensePolicy.refusal(
            terms, title.licenseUsage, now: clock.now(), clockRolledBack: clockGuard?.rolledBack(for: title) ?? false,
            startingPlay: false)
    }
}
