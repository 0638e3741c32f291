import Foundation
import StowageDASH
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// Live DASH recordings (`submit --record URL.mpd`): one reload of the MPD per title (its first rendition's
/// reload timer) serves every rendition: ``LiveDASHPeriods`` takes the segments that exist on the origin's clock
/// the worker read with it and enters each new Period, and what is new is stored in one transaction per rendition
/// and one per Period, as for HLS. The title's `masterPlaylist` is the local manifest's template
/// (``LiveDASHManifest``) until the recording ends, then the manifest itself.
extension RecordingComponent {
    /// A reloaded live MPD for `title`.
    func applyDASHReload(_ report: ReloadReport, title: TitleRecord, record: RecordRequest, lease: Lease) throws {
        let token = title.token
        let store = context.store
        let renditions = try store.renditions(token: token)
        let reload: LiveDASHPeriods.Reload
        do {
            let mpd = try MPD(liveData: Data(report.text.utf8), url: report.url)
            var states = renditions.map { Self.dashState($0) }
            if states.contains(where: { $0 == nil }) {
                // Before its first reload a rendition has only its plan: the first Period's starting states.
                let planned = try LiveDASHPlanner.plan(mpd: mpd, selection: title.selection).states
                for (i, r) in renditions.enumerated() where states[i] == nil {
                    guard planned.indices.contains(r.position), planned[r.position].folder == r.localPath else {
                        throw DASHError(
                            .missingAttribute, element: "Representation",
                            "the reloaded MPD no longer has the Representation planned for \(r.localPath)")
                    }
                    states[i] = planned[r.position]
                }
            }
            // The origin's clock as the worker read it; without one (an origin that told no time), the box's.
            let boxNow = context.clock.now()
            let now = report.originTime ?? boxNow
            let current = states.compactMap { $0 }.map { state in
                var state = state
                state.clockOffset = now - boxNow
                return state
            }
            reload = try LiveDASHPeriods.reload(
                states: current, template: title.masterPlaylist ?? "", mpd: mpd, now: now, record: record,
                selection: title.selection, knownKeyIDs: Set(try store.keys(token: token).compactMap(\.keyID)))
        } catch let error as DASHError {
            return try reloadFailed(
                TaskFailure(code: .playlist, message: "\(report.url): \(error.description)", retryable: true),
                lease: lease)
        }
        var periods = reload.newPeriods.makeIterator()
        var next = periods.next()
        for position in reload.states.indices {
            if let period = next, period.firstRendition == position {
                if let refusal = try enter(period, title: title) { return try end(token, reason: refusal) }
                next = periods.next()
            }
            guard let delta = reload.deltas[position] else { continue }
            let added = try store.appendLive(
                token: token, rendition: position, live: try Self.encode(reload.states[position]), lines: delta.lines,
                files: delta.entries.map { Store.LiveFile(resource: $0.resource, isGap: $0.isGap) }, keys: [])
            for r in added { pipeline.enqueue(pipeline.fetchItem(r), at: nil) }
            try noteGap(token, missed: delta.missed, of: reload.states[position].folder, window: "time-shift window")
        }
        reloaded(token, rendition: 0, changed: reload.changed, target: reload.targetDuration, lease: lease)
        if let reason = reload.end { return try end(token, reason: reason) }
        pipeline.publishProgress(token, throttled: true)
    }

    /// Stores a Period the recording entered (its renditions, init files, new keys, template and protection) and
    /// queues its files. Its plan is judged as any plan (``PlanAdmission``): a Period only a device's DRM can
    /// play is stored only with `--allow-device-drm` (the title is then never playable here), else the recording
    /// ends before it, and the refusal is returned. New keys (a key change at the Period) are acquired as HLS's
    /// key rotation's are.
    private func enter(_ period: LiveDASHPeriods.NewPeriod, title: TitleRecord) throws -> String? {
        let token = title.token
        let request = PlanAdmission.Request(
            url: title.url, recording: true, keySource: title.licenseURL != nil || title.operatorKeys != nil,
            allowDeviceDRM: title.allowDeviceDRM, posterURL: nil)
        let plan: ResolvedPlan
        switch PlanAdmission.of(period.plan, for: request) {
        case .admitted(let admitted): plan = admitted
        case .refused(let error):
            let message = "Period \(period.ordinal) of the recording is not recorded: \(error.message)"
            try context.desk.record(TitleHappening(token, kind: "recording-error", detail: message))
            return message
        }
        let stored = try context.store.title(token)?.protection
        let protection = plan.protection.map { stored?.adding($0) ?? $0 } ?? stored
        let added = try context.store.addLivePeriod(
            token: token, firstRendition: period.firstRendition, renditions: plan.renditions,
            states: try period.startStates.map(Self.encode), files: plan.resources, keys: plan.keys,
            masterPlaylist: plan.masterPlaylist ?? "", protection: protection)
        for r in added { pipeline.enqueue(pipeline.fetchItem(r), at: nil) }
        context.logger.info(
            "recording entered a new Period",
            metadata: ["token": "\(token)", "period": "\(period.ordinal)", "renditions": "\(plan.renditions.count)"])
        try context.desk.record(
            TitleHappening(token, kind: "period", detail: "Period \(period.ordinal) of the recording began"))
        try keysMet(token, count: plan.keys.count)
        return nil
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

    /// A DASH recording reloads its MPD once for all its renditions, on its first rendition's timer, until it
    /// ends: while a rendition records, or while the last Period ended without the MPD saying the presentation
    /// did (the next Period is awaited). One whose renditions all ended otherwise (a restart between the last
    /// reload and the end of the recording) ends now.
    func scheduleDASHReload(_ title: TitleRecord) throws {
        let states = try context.store.renditions(token: title.token).compactMap(Self.dashState)
        let latest = states.filter { $0.ordinal == states.map(\.ordinal).max() }
        if !states.isEmpty, latest.allSatisfy(\.ended), latest.contains(where: { $0.periodEnded != true }) {
            return try end(title.token, reason: "every rendition had ended")
        }
        let target = latest.filter { !$0.ended }.map(\.targetDuration).min() ?? latest.map(\.targetDuration).min()
        reloads.start(title.token, rendition: 0, target: target ?? 2, now: context.clock.monotonic())
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
                missing: missing, period: state?.ordinal ?? 0)
        }
        return LiveDASHManifest.render(text, tracks: tracks)
    }
}
