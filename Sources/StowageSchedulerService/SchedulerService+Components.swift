import Foundation
import StowageProtocol
import StowageSchedulerCore

extension SchedulerService {
    /// The registration list: one line a component (its order is the order requests are offered and ticks run).
    func makeComponents(_ context: ComponentContext) {
        let plays = PlaysComponent(context: context)
        components.register(plays)
        components.register(CatalogComponent(context: context, options: options.catalog, plays: plays))
        components.register(
            QuotaComponent(
                context: context,
                policy: options.quota.map { EvictionPolicy(quota: $0, protect: options.evictProtect) },
                advisors: { [unowned self] in components.all.compactMap { $0 as? any EvictionAdvisor } }))
    }

    /// The pipeline's hooks into the quota: admitting a planned title, and an operator's resume of one waiting.
    var quota: QuotaComponent? { components.first(QuotaComponent.self) }
    /// An import's check that the catalogue does not fill the id a bundle brings.
    var catalog: CatalogComponent? { components.first(CatalogComponent.self) }
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
