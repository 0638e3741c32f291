import Foundation
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// `--notify` (docs/notifications.md): the outbox as a consumer of the event sink. Every recorded event with a
/// `notice` is stored for every receiver, with its title's status as it is then, in the transaction of the change
/// it reports (``observe(_:)``); every half second the delivery service's outcomes are taken and the next events
/// handed to it, as ``NotifyOutbox`` decides (``deliver()``); every 10 s licenses about to end are announced
/// (``announceExpiringLicenses()``). It answers `stowctl notify status`.
///
/// The store's outbox is the truth (a delivered event is deleted, one out when the process dies goes again after
/// the restart); what is kept here is only the delivery's memory: what is out, which receiver is backed off.
final class NotifyComponent: SchedulerComponent {
    let name = "notify"
    let context: ComponentContext
    let options: NotifyOptions
    /// Events out with the delivery service, receivers backed off, license ends already announced.
    var outbox = NotifyOutbox()
    private var delivery = Every(seconds: 0.5)
    private var expiry = Every(seconds: 10)

    init(context: ComponentContext, options: NotifyOptions) {
        self.context = context
        self.options = options
    }

    func tick(now: Double) {
        if delivery.isDue(now: now) { deliver() }
        if expiry.isDue(now: now) { announceExpiringLicenses() }
    }

    func answer(_ request: ComponentRequest) throws -> ReplyBody? {
        guard case .notifyStatus = request.operation else { return nil }
        return .notify(try report())
    }

    /// Stores the event for every receiver when it has a notice: about its title, with the title's status now (nil
    /// once the record is gone), or about the box itself (``TitleHappening/box(_:detail:)``, subject "").
    func observe(_ event: TitleHappening) throws {
        guard let kind = event.notice, !options.receivers.isEmpty else { return }
        var status: TitleStatus?
        if !event.isBox, try context.store.title(event.token) != nil {
            status = try context.desk.status(event.token)
        }
        try context.store.enqueueNotifications(
            options.records(
                kind: kind, subject: event.token, status: status, detail: event.noticeDetail ?? event.detail,
                wallNow: context.clock.now()))
    }

    /// `stowctl notify status`: per receiver what waits in the store, and what the delivery remembers of it.
    private func report() throws -> NotifyReport {
        let backlog = try context.store.notificationBacklog()
        let urls = options.receivers + backlog.keys.sorted().filter { !options.receivers.contains($0) }
        let (wall, t) = (context.clock.now(), context.clock.monotonic())
        return NotifyReport(
            receivers: urls.map { url in
                let state = outbox.receivers[url]
                return NotifyReport.Receiver(
                    url: url, waiting: backlog[url]?.count ?? 0, oldestWaitingAt: iso8601(backlog[url]?.oldest),
                    failures: state?.failures ?? 0, lastError: state?.lastError,
                    nextAttemptAt: state?.retryAt.flatMap { $0 > t ? iso8601(wall + $0 - t) : nil },
                    lastDeliveredAt: iso8601(state?.lastDeliveredAt))
            }, signed: options.secret != nil)
    }
}
