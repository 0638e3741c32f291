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
        components.register(NotifyComponent(context: context, options: options.notify))
        components.register(
            BundlesComponent(
                context: context, vault: vault, box: box, allowedHosts: options.allowedHosts,
                claimants: { [unowned self] in [self] + components.all.compactMap { $0 as? any TitleIDClaimant } }))
    }

    /// The pipeline's hooks into the quota: admitting a planned title, and an operator's resume of one waiting.
    var quota: QuotaComponent? { components.first(QuotaComponent.self) }
    /// `gc`'s hook into bundles: an import's staging folder is not garbage while the import runs.
    var bundles: BundlesComponent? { components.first(BundlesComponent.self) }
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

    func adopt(_ title: TitleRecord, fill: () throws -> Void, last: () throws -> Void) throws {
        var title = title
        title.licenseEpoch = memory.clockEpoch.epoch
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
    /// what has a notice), the subscribers. Inside a batch, all of it commits with the change it reports.
    func record(_ event: TitleHappening) throws {
        if let kind = event.kind {
            try store.appendEvent(
                token: event.token, kind: kind, detail: event.detail, at: Date(timeIntervalSince1970: clock.now()))
        }
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

/// Until the catalogue is a component of its own: an id of the catalogue in force is the catalogue's to fill.
extension SchedulerService: TitleIDClaimant {
    func claim(onTitleID id: String) -> String? {
        guard memory.catalog.catalog?.titles.contains(where: { $0.id == id }) == true else { return nil }
        return "an entry of this box's catalogue: the catalogue fills it, not a bundle"
    }
}
