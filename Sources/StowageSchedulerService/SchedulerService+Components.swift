import Foundation
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
        components.register(
            PeerComponent(
                context: context, vault: vault, allowedHosts: options.allowedHosts,
                storedPlan: { [unowned self] in try storedPlan($0, resources: $1) }))
        components.register(
            FillWindowComponent(context: context, box: options.fillWindow, timeZone: options.timeZone))
        components.register(DevicesComponent(context: context, vault: vault))
    }

    /// The pipeline's hooks into the quota: admitting a planned title, and an operator's resume of one waiting.
    var quota: QuotaComponent? { components.first(QuotaComponent.self) }

    /// The pipeline's hooks into peer fill: a submit's peer checked and its secret wrapped, the work of a resolve
    /// or fetch from the peer, what a peer's plan or failed answer means.
    var peer: PeerComponent? { components.first(PeerComponent.self) }

    /// Whether a title may not fetch now (the fill windows): a submitted or resumed title then waits for its window.
    func windowHolds(_ title: TitleRecord) -> Bool {
        components.first(FillWindowComponent.self)?.holds(title) ?? false
    }
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
