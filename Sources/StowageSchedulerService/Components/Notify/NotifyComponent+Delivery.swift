import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore

extension NotifyComponent {
    /// Every half second: outcomes taken (delivered rows deleted, failed receivers backed off), the outbox bounded,
    /// and the next events handed to the delivery service.
    func deliver() {
        guard let feed = options.feed else { return }
        let t = context.clock.monotonic()
        var delivered: [Int64] = []
        for outcome in feed.outcomes.take() {
            switch outcome {
            case .delivered(let id, let receiver):
                outbox.delivered(id, receiver: receiver, wallNow: context.clock.now())
                delivered.append(id)
            case .failed(let id, let receiver, let error):
                let wait = outbox.failed(id, receiver: receiver, error: error, now: t)
                context.logger.debug(
                    "notification not delivered; retrying",
                    metadata: ["receiver": "\(receiver)", "error": "\(error)", "retryIn": "\(Int(wait.rounded()))s"])
            }
        }
        do {
            try context.store.deleteNotifications(ids: delivered)
            for (receiver, count) in try context.store.trimNotifications(perReceiver: options.maxWaiting) {
                context.logger.warning(
                    "notification outbox full: oldest events dropped",
                    metadata: ["receiver": "\(receiver)", "dropped": "\(count)", "kept": "\(options.maxWaiting)"])
            }
            let rows = try context.store.waitingNotifications(perReceiver: 256)
            let waiting = rows.compactMap { row in
                row.id.map { NotifyWaiting(id: $0, receiver: row.receiver, subject: row.subject) }
            }
            let chosen = Set(outbox.next(waiting: waiting, now: t).map(\.id))
            let secret = options.secret
            feed.parcels.post(
                contentsOf: rows.compactMap { row in
                    guard let id = row.id, chosen.contains(id) else { return nil }
                    return NotifyFeed.Parcel(
                        id: id, receiver: row.receiver, body: row.body,
                        signature: secret.map { NotifySignature.value(secret: $0, body: row.body) })
                })
        } catch {
            context.logger.error(
                "the notification outbox could not be read or updated", metadata: ["error": "\(error)"])
        }
    }
}
