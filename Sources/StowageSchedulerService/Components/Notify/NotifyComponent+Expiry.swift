import Foundation
import StowageLicensing
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

extension NotifyComponent {
    /// Every 10 s: completed titles whose license ends within `--notify-expiry-ahead` are announced once per
    /// license end (`license-expiring`); the end announced is kept in the settings, so a restart does not repeat it.
    func announceExpiringLicenses() {
        guard !options.receivers.isEmpty, let titles = try? context.store.titles(state: .completed) else { return }
        let now = context.clock.now()
        for title in titles {
            guard let terms = title.licenseTerms, let end = LicensePolicy.effectiveExpiry(terms, title.licenseUsage)
            else { continue }
            let key = "notify-expiring:\(title.token)"
            let announced =
                outbox.expiryAnnounced[title.token]
                ?? (try? context.store.setting(key)).flatMap { $0.flatMap(Double.init) }
            guard NotifyOutbox.expiryDue(end: end, now: now, ahead: options.expiryAhead, announced: announced) else {
                outbox.expiryAnnounced[title.token] = announced
                continue
            }
            do {
                try context.store.batch {
                    try? context.desk.record(
                        TitleHappening(
                            title.token, kind: nil, detail: "the license ends at \(iso8601(end) ?? "?")",
                            notice: .licenseExpiring))
                    try? context.store.setSetting(key, "\(end)")
                }
                outbox.expiryAnnounced[title.token] = end
            } catch {
                context.logger.error(
                    "a license-expiring notification could not be stored", metadata: ["error": "\(error)"])
            }
        }
    }
}
