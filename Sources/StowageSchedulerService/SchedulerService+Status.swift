import Foundation
import StowageBundle
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// What clients are told of a title: its status object, and the events subscribers hear.
extension SchedulerService {
    /// The title's status now; `not-found` if it is gone meanwhile (an eviction, a delete), never a trap.
    func currentStatus(_ token: String) throws -> TitleStatus {
        guard let title = try store.title(token) else { throw TitleError.noTitle(token) }
        return try status(of: title, progress: store.progress(token: token))
    }

    /// Why there is no title `token`: one the quota evicted says when and for what (its event outlives its
    /// record); any other is unknown.
    func missing(_ token: String) throws -> TitleError {
        guard let evicted = try store.events(token: token).last(where: { $0.kind == "evicted" }) else {
            return TitleError.noTitle(token)
        }
        return TitleError(
            code: .notFound,
            message: "title \(token) was evicted at \(iso8601(evicted.at) ?? "?") \(evicted.detail); its files and "
                + "record are gone (the scheduler's --quota; `stowctl list --evictable` shows what goes next)")
    }

    /// The contract's status object for a title (``TitleStatusBuilder``), with the components' fields.
    func status(of title: TitleRecord, progress: Store.Progress) throws -> TitleStatus {
        let builder = TitleStatusBuilder(home: options.home) { [playback] in
            try? playback?.playability($0, thorough: false, startingPlay: true)
        }
        let queued = title.state == .requested && core.waitingForSlot.contains(title.token)
        var out = builder.status(
            of: title, progress: progress, live: memory.progress.inFlight(title.token) { core.leases[$0] != nil },
            queuePosition: queued ? core.slotQueue().firstIndex(of: title.token).map { $0 + 1 } : nil)
        components.describe(title, into: &out)
        return out
    }

    /// Progress events to the title's subscribers (``SubscribersComponent``).
    func publishProgress(_ token: String, throttled: Bool) {
        subscribers?.progress(token, throttled: throttled)
    }
}
