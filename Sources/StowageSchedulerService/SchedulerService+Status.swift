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
        guard let title = try store.title(token) else { throw unknownTitle(token) }
        return try status(of: title, progress: store.progress(token: token))
    }

    /// The contract's status object for a title.
    func status(of title: TitleRecord, progress: Store.Progress) throws -> TitleStatus {
        let live = memory.progress.inFlight(title.token) { core.leases[$0] != nil }
        let done = progress.bytesVerified + live
        let expected: Int64? = title.state == .completed ? progress.bytesVerified : title.bytesEstimate
        var fraction = progress.total > 0 ? Double(progress.verified) / Double(progress.total) : 0
        if title.state == .completed { fraction = 1 }
        let local = title.localPlaylist.map { options.home.titleDirectory(title.token).appendingPathComponent($0).path }
        // Only a completed title is worth checking (status and list must stay cheap for many titles).
        let notPlayable: NotPlayableReason?
        switch title.state {
        case .completed:
            let verdict = try? playability(title, thorough: false, startingPlay: true)
            notPlayable =
                verdict?.playable == true
                ? nil : verdict?.notPlayable ?? NotPlayableReason(.filesMissing, "the offline copy cannot be read")
        default:
            notPlayable = NotPlayableReason.ended(title.state) ?? .notDownloaded
        }
        let playable = notPlayable == nil
        let error = title.errorCode.map {
            TitleError(code: ErrorCode(rawValue: $0) ?? .internal, message: title.errorMessage ?? "")
        }
        var out = TitleStatus(
            token: title.token, url: title.url, name: title.name, state: title.state, progress: fraction,
            bytesDownloaded: done, bytesExpected: expected, segmentsDone: progress.verified,
            segmentsTotal: progress.total, requestedAt: iso8601(title.requestedAt),
            startedAt: iso8601(title.startedAt), endedAt: iso8601(title.endedAt), license: nil,
            localPlaylist: local, playableOffline: playable, error: error)
        if title.state == .suspended {
            out.suspendedReason = title.suspendedReason
            out.suspendedSince = iso8601(title.suspendedAt)
        }
        if title.state == .requested, core.waitingForSlot.contains(title.token) {
            out.queuePosition = core.slotQueue().firstIndex(of: title.token).map { $0 + 1 }
        }
        out.id = title.externalID
        out.protection = protection(of: title)
        out.notPlayableReason = notPlayable
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
