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

    /// Sends an event about a title to its subscribers (or to `only`).
    func publish(_ token: String, kind: String, to only: [[UInt8]]? = nil) {
        let targets = only ?? memory.progress.subscribers.targets(for: token)
        guard !targets.isEmpty, let title = try? store.title(token), let progress = try? store.progress(token: token),
            let status = try? status(of: title, progress: progress)
        else { return }
        let frames = FrameCodec.encode(.event, TitleEvent(kind: kind, status: status))
        for identity in targets where !send(identity, frames) { memory.progress.subscribers.remove(identity) }
    }

    /// Progress events, at most four a second per title.
    func publishProgress(_ token: String, throttled: Bool) {
        let t = clock.monotonic()
        guard memory.progress.shouldPublish(token, throttled: throttled, now: t) else { return }
        publish(token, kind: "progress")
    }
}
