import Foundation
import StowageProtocol
import StowageRuntime
import StowageStore

/// The contract's status object of a title (`status --json`, `list`, events), from its record and progress and what
/// the loop knows now (bytes in flight, its place in the queue). The components then add their fields
/// (``SchedulerComponent/describe(_:into:)``). It must stay cheap: `list` builds one per title.
struct TitleStatusBuilder {
    let home: StowageHome
    /// Whether a completed title can be played (its entry playlist only, not every file).
    let playability: (TitleRecord) -> PlayAuthorization?

    /// `live`: bytes of tasks in flight; `queuePosition`: its place among titles waiting for a slot (1 first).
    func status(of title: TitleRecord, progress: Store.Progress, live: Int64, queuePosition: Int?) -> TitleStatus {
        let expected: Int64? = title.state == .completed ? progress.bytesVerified : title.bytesEstimate
        var fraction = progress.total > 0 ? Double(progress.verified) / Double(progress.total) : 0
        if title.state == .completed { fraction = 1 }
        let local = title.localPlaylist.map { home.titleDirectory(title.token).appendingPathComponent($0).path }
        // Only a completed title is worth checking (status and list must stay cheap for many titles).
        let notPlayable: NotPlayableReason?
        switch title.state {
        case .completed:
            let verdict = playability(title)
            notPlayable =
                verdict?.playable == true
                ? nil : verdict?.notPlayable ?? NotPlayableReason(.filesMissing, "the offline copy cannot be read")
        default:
            notPlayable = NotPlayableReason.ended(title.state) ?? .notDownloaded
        }
        let error = title.errorCode.map {
            TitleError(code: ErrorCode(rawValue: $0) ?? .internal, message: title.errorMessage ?? "")
        }
        var out = TitleStatus(
            token: title.token, url: title.url, name: title.name, state: title.state, progress: fraction,
            bytesDownloaded: progress.bytesVerified + live, bytesExpected: expected, segmentsDone: progress.verified,
            segmentsTotal: progress.total, requestedAt: iso8601(title.requestedAt),
            startedAt: iso8601(title.startedAt), endedAt: iso8601(title.endedAt), license: nil,
            localPlaylist: local, playableOffline: notPlayable == nil, error: error)
        if title.state == .suspended {
            out.suspendedReason = title.suspendedReason
            out.suspendedSince = iso8601(title.suspendedAt)
        }
        if title.state == .requested { out.queuePosition = queuePosition }
        out.id = title.externalID
        out.protection = title.protection
        // What the plan keeps once there is one; until then the span asked for.
        out.range = title.clipStored ?? title.clipRange
        out.notPlayableReason = notPlayable
        return out
    }
}
