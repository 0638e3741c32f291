import Foundation
import StowageLicensing
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// `--notify`: events are stored in the outbox in the transaction of what they report, then handed to the
/// delivery task beside the loop (``NotifyDelivery``) as ``NotifyOutbox`` decides; a delivered one is deleted.
extension SchedulerService {
    /// Stores an event about title `token` for every receiver, with its status object as it is now.
    func notify(_ token: String, _ kind: NotifyEvent.Kind, detail: String? = nil) throws {
        guard !options.notify.receivers.isEmpty else { return }
        var status: TitleStatus?
        if let title = try store.title(token) {
            status = try self.status(of: title, progress: store.progress(token: token))
        }
        try store.enqueueNotifications(
            options.notify.records(kind: kind, subject: token, status: status, detail: detail, wallNow: clock.now()))
    }

    /// Stores an event about the box itself (the catalogue), ordered among the box's own events.
    func notifyBox(_ kind: NotifyEvent.Kind, detail: String) throws {
        guard !options.notify.receivers.isEmpty else { return }
        try store.enqueueNotifications(
            options.notify.records(kind: kind, subject: "", status: nil, detail: detail, wallNow: clock.now()))
    }

    /// Every half second: outcomes taken (delivered rows deleted, failed receivers backed off), the outbox bounded,
    /// and the next events handed to the delivery task.
    func deliverNotifications() {
        guard let feed = options.notify.feed else { return }
        let t = clock.monotonic()
        var delivered: [Int64] = []
        for outcome in feed.takeOutcomes() {
            switch outcome {
            case .delivered(let id, let receiver):
                memory.notify.delivered(id, receiver: receiver, wallNow: clock.now())
                delivered.append(id)
            case .failed(let id, let receiver, let error):
                let wait = memory.notify.failed(id, receiver: receiver, error: error, now: t)
                logger.debug(
                    "notification not delivered; retrying",
                    metadata: ["receiver": "\(receiver)", "error": "\(error)", "retryIn": "\(Int(wait.rounded()))s"])
            }
        }
        do {
            try store.deleteNotifications(ids: delivered)
            for (receiver, count) in try store.trimNotifications(perReceiver: options.notify.maxWaiting) {
                logger.warning(
                    "notification outbox full: oldest events dropped",
                    metadata: [
                        "receiver": "\(receiver)", "dropped": "\(count)", "kept": "\(options.notify.maxWaiting)",
                    ])
            }
            let rows = try store.waitingNotifications(perReceiver: 256)
            let waiting = rows.compactMap { row in
                row.id.map { NotifyWaiting(id: $0, receiver: row.receiver, subject: row.subject) }
            }
            let chosen = Set(memory.notify.next(waiting: waiting, now: t).map(\.id))
            let secret = options.notify.secret
            feed.hand(
                rows.compactMap { row in
                    guard let id = row.id, chosen.contains(id) else { return nil }
                    return NotifyFeed.Parcel(
                        id: id, receiver: row.receiver, body: row.body,
                        signature: secret.map { NotifySignature.value(secret: $0, body: row.body) })
                })
        } catch {
            logger.error("the notification outbox could not be read or updated", metadata: ["error": "\(error)"])
        }
    }
}

extension SchedulerService {
    /// `stowctl notify status`: per receiver what waits in the store, and what the delivery remembers of it.
    func notifyReport() throws -> NotifyReport {
        let backlog = try store.notificationBacklog()
        let urls = options.notify.receivers + backlog.keys.sorted().filter { !options.notify.receivers.contains($0) }
        let (wall, t) = (clock.now(), clock.monotonic())
        return NotifyReport(
            receivers: urls.map { url in
                let state = memory.notify.receivers[url]
                return NotifyReport.Receiver(
                    url: url, waiting: backlog[url]?.count ?? 0, oldestWaitingAt: iso8601(backlog[url]?.oldest),
                    failures: state?.failures ?? 0, lastError: state?.lastError,
                    nextAttemptAt: state?.retryAt.flatMap { $0 > t ? iso8601(wall + $0 - t) : nil },
                    lastDeliveredAt: iso8601(state?.lastDeliveredAt))
            }, signed: options.notify.secret != nil)
    }
}

extension SchedulerService {
    /// A catalogue applied or refused, for the receivers; the store failing here loses the event, not the catalogue.
    func notifyCatalog(_ kind: NotifyEvent.Kind, detail: String) {
        do { try notifyBox(kind, detail: detail) } catch {
            logger.error("a catalogue notification could not be stored", metadata: ["error": "\(error)"])
        }
    }

}

extension SchedulerService {
    /// Every 10 s: completed titles whose license ends within `--notify-expiry-ahead` are announced once per
    /// license end (`license-expiring`); the end announced is kept in the settings, so a restart does not repeat it.
    func announceExpiringLicenses() {
        guard !options.notify.receivers.isEmpty, let titles = try? store.titles(state: .completed) else { return }
        let now = clock.now()
        for title in titles {
            guard let t = terms(of: title), let end = LicensePolicy.effectiveExpiry(t, usage(of: title)) else {
                continue
            }
            let key = "notify-expiring:\(title.token)"
            let announced =
                memory.notify.expiryAnnounced[title.token]
                ?? (try? store.setting(key)).flatMap { $0.flatMap(Double.init) }
            guard NotifyOutbox.expiryDue(end: end, now: now, ahead: options.notify.expiryAhead, announced: announced)
            else {
                memory.notify.expiryAnnounced[title.token] = announced
                continue
            }
            do {
                try store.batch {
                    try? record(
                        TitleHappening(
                            title.token, kind: nil, detail: "the license ends at \(iso8601(end) ?? "?")",
                            notice: .licenseExpiring))
                    try? store.setSetting(key, "\(end)")
                }
                memory.notify.expiryAnnounced[title.token] = end
            } catch {
                logger.error("a license-expiring notification could not be stored", metadata: ["error": "\(error)"])
            }
        }
    }
}
