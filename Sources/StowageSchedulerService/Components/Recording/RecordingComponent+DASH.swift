import Foundation
import StowageDASH
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// Live DASH recordings (`submit --record URL.mpd`): each rendition reloads the MPD, ``LiveDASHRecorder`` takes
/// the segments that exist on the origin's clock the worker read with it, and what is new is stored in one
/// transaction per reload, as for HLS. The title's `masterPlaylist` is the local manifest's template
/// (``LiveDASHManifest``) until the recording ends, then the manifest itself.
extension RecordingComponent {
    /// A reloaded live MPD for rendition `position` of `title`.
    func applyDASHReload(
        _ report: ReloadReport, title: TitleRecord, record: RecordRequest, rendition: RenditionRecord, lease: Lease
    ) throws {
        let token = title.token
        let position = rendition.position
        var delta: LiveDASHRecorder.Delta
        var state: LiveDASHRendition
        do {
            let mpd = try MPD(liveData: Data(report.text.utf8), url: report.url)
            if let stored = Self.dashState(rendition) {
                state = stored
            } else {
                let states = try LiveDASHPlanner.plan(mpd: mpd, selection: title.selection).states
                guard states.indices.contains(position), states[position].folder == rendition.localPath else {
                    throw DASHError(
                        .missingAttribute, element: "Representation",
                        "the reloaded MPD no longer has the Representation planned for \(rendition.localPath)")
                }
                state = states[position]
            }
            // The origin's clock as the worker read it; without one (an origin that told no time), the box's.
            let boxNow = context.clock.now()
            let now = report.originTime ?? boxNow
            state.clockOffset = now - boxNow
            delta = try LiveDASHRecorder.merge(&state, rendition: position, mpd: mpd, now: now, record: record)
        } catch let error as DASHError {
            return try reloadFailed(
                TaskFailure(code: .playlist, message: "\(report.url): \(error.description)", retryable: true),
                lease: lease)
        }
        let added = try context.store.appendLive(
            token: token, rendition: position, live: try Self.encode(state), lines: delta.lines,
            files: delta.entries.map { Store.LiveFile(resource: $0.resource, isGap: $0.isGap) }, keys: [])
        for r in added { pipeline.enqueue(pipeline.fetchItem(r), at: nil) }
        if delta.missed > 0 {
            let message =
                "\(delta.missed) segment(s) of \(rendition.localPath) left the time-shift window before they "
                + "could be fetched: recorded as a gap"
            context.logger.warning("recording gap", metadata: ["token": "\(token)", "missed": "\(delta.missed)"])
            try context.desk.record(TitleHappening(token, kind: "gap", detail: message))
        }
        reloads.reloaded(
            token, rendition: position, changed: delta.changed, target: state.targetDuration,
            startedAt: lease.issuedAt, now: context.clock.monotonic())
        if state.ended {
            reloads.stop(token, rendition: position)
            if !reloads.isReloading(token) {
                return try end(token, reason: delta.endReason ?? "the stream ended")
            }
        }
        pipeline.publishProgress(token, throttled: true)
    }

    /// A listed segment of a live DASH recording that answered 404 (or 410) while it should still be in the
    /// origin's window (``LiveDASHRendition/retryTimeLeft(line:boxNow:)``) is asked for again, a segment duration
    /// later (sooner when it leaves the window before), instead of becoming a gap: an origin late to fill its CDN
    /// is not a hole in the recording. Returns whether it was; false leaves it to ``gap(_:reason:)``.
    func retryWhileAvailable(_ r: ResourceRecord, reason: String) throws -> Bool {
        guard [.segment, .subtitle].contains(r.kind), let title = try context.store.title(r.token),
            title.record != nil, title.manifestName != nil,
            let rendition = try context.store.renditions(token: r.token).first(where: { $0.position == r.rendition }),
            let state = Self.dashState(rendition),
            let line = LiveDASHRendition.line(
                of: r.localPath, in: rendition.playlist.split(separator: "\n").map(String.init)),
            let left = state.retryTimeLeft(line: line, boxNow: context.clock.now())
        else { return false }
        var again = r
        again.state = .pending
        again.lastError = reason
        try context.store.update(again)
        let delay = min(max(0.5, state.targetDuration), left)
        context.logger.info(
            "live segment not there yet: asked for again while it is in the window",
            metadata: [
                "token": "\(r.token)", "file": "\(r.localPath)", "reason": "\(reason)",
                "windowLeft": "\(Int(left.rounded()))s",
            ])
        pipeline.enqueue(pipeline.fetchItem(again), at: context.clock.monotonic() + delay)
        return true
    }

    /// Marks every rendition of a DASH recording ended and stores its finished local manifest.
    func endDASH(_ title: inout TitleRecord) throws {
        let store = context.store
        for r in try store.renditions(token: title.token) {
            var state = Self.dashState(r)
            state?.ended = true
            try store.setRenditionPlaylist(
                token: title.token, rendition: r.position, playlist: r.playlist, live: try state.map(Self.encode))
        }
        title.masterPlaylist = try store.liveManifest(title)
    }

    /// Whether the rendition has ended, and its reload pacing, for either kind of recording.
    static func liveProgress(_ r: RenditionRecord, dash: Bool) -> (ended: Bool, target: Double)? {
        if dash { return dashState(r).map { ($0.ended, $0.targetDuration) } }
        return liveState(r).map { ($0.ended, $0.targetDuration) }
    }

    /// A DASH rendition's live state as stored (nil before its first reload).
    static func dashState(_ r: RenditionRecord) -> LiveDASHRendition? {
        r.live.flatMap { try? JSONDecoder().decode(LiveDASHRendition.self, from: Data($0.utf8)) }
    }

    static func encode(_ state: LiveDASHRendition) throws -> String {
        String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
    }
}

extension Store {
    /// The local manifest of a live DASH recording as recorded so far: its template filled with every rendition's
    /// timeline (see ``LiveDASHManifest``); the stored text as it is once finished or for any other title.
    func liveManifest(_ title: TitleRecord) throws -> String {
        guard let text = title.masterPlaylist, title.record != nil, title.manifestName != nil else {
            return title.masterPlaylist ?? ""
        }
        let timeline = try self.timeline(token: title.token)
        let tracks = try renditions(token: title.token).map { r in
            let state = RecordingComponent.dashState(r)
            // The rendition's media files in the order their timeline lines were written (window gaps, which
            // have no line, left out); one that became a gap after it was listed is missing from the copy.
            let files = (timeline[r.position] ?? []).filter { !$0.localPath.hasPrefix("\(r.localPath)/gap-") }
            let missing = Set(files.indices.filter { files[$0].state == .gap })
            return LiveDASHManifest.Track(
                presentationTimeOffset: state?.firstTime ?? 0,
                lines: r.playlist.split(separator: "\n").map(String.init), seconds: state?.seconds ?? 0,
                missing: missing)
        }
        return LiveDASHManifest.render(text, tracks: tracks)
    }
}
