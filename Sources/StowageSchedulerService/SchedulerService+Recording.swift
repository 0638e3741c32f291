import Foundation
import StowageHLS
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// Recordings (`submit --record`): the title's media playlists are reloaded as RFC 8216 §6.3.4 says
/// (``LiveReloads``), what is new is taken by ``LiveRecorder`` and stored in one transaction per reload, and
/// the new files are fetched and verified like any title's. The recording ends at the stream's end, the
/// requested duration or `stowctl stop`; the offline playlists then become VOD and the title completes once
/// every file is verified.
extension SchedulerService {
    /// The recording request of a title, nil for a download.
    func recordRequest(_ title: TitleRecord) -> RecordRequest? {
        title.record
    }

    /// Whether the title is a recording that has not ended.
    func isRecording(_ title: TitleRecord) -> Bool { title.record != nil && title.recordingEndedAt == nil }

    /// Licensed: the recording starts (or carries on, after a restart or a resume) with a reload of every
    /// rendition that has not ended.
    func startRecording(_ token: String) throws {
        guard var title = try store.title(token) else { return }
        title.startedAt = title.startedAt ?? clock.now()
        try store.update(title)
        try handle(.recordingStarted, of: token)
        core.exemptFromSlots(token)
        try queueSegmentWork(token)
        try queueMissingKeys(title)
        try scheduleReloads(title)
    }

    /// Every rendition not ended is due for a reload now. One whose renditions all ended (a restart between the
    /// last reload and the end of the recording) ends now.
    func scheduleReloads(_ title: TitleRecord) throws {
        guard isRecording(title) else { return }
        var reloading = false
        for r in try store.renditions(token: title.token) {
            let live = r.live.flatMap { decode(LiveRendition.self, $0) }
            guard live?.ended != true else { continue }
            reloading = true
            memory.liveReloads.start(
                title.token, rendition: r.position, target: live?.targetDuration ?? 6, now: clock.monotonic())
        }
        if !reloading { try endRecording(title.token, reason: "every rendition had ended") }
    }

    /// A recording's keys met during the event but not acquired yet (the task was lost to a restart or a
    /// suspension): a key-only license task fetches them.
    func queueMissingKeys(_ title: TitleRecord) throws {
        guard title.record != nil, title.licenseTerms != nil,
            try store.keys(token: title.token).contains(where: { $0.wrapped == nil })
        else { return }
        core.enqueue(WorkItem(token: title.token, kind: .license))
    }

    /// Queues the reloads that are due.
    func queueDueReloads(now t: Double) {
        guard !memory.liveReloads.isEmpty else { return }
        for (token, rendition) in memory.liveReloads.due(now: t) {
            guard let title = try? store.title(token), let renditions = try? store.renditions(token: token),
                let r = renditions.first(where: { $0.position == rendition })
            else {
                memory.liveReloads.stop(token, rendition: rendition)
                continue
            }
            guard isRecording(title), title.state == .recording else {
                memory.liveReloads.forget(token)
                continue
            }
            core.enqueue(
                WorkItem(token: token, kind: .reload(rendition: rendition), host: URL(string: r.sourceURL)?.host))
        }
    }

    /// A reloaded playlist: what is new is stored and queued; the end ends the recording.
    func applyReload(_ report: ReloadReport, rendition position: Int, lease: Lease) throws {
        let token = lease.item.token
        guard let title = try store.title(token), title.state == .recording, let record = recordRequest(title),
            let rendition = try store.renditions(token: token).first(where: { $0.position == position })
        else { return }
        var state =
            rendition.live.flatMap { decode(LiveRendition.self, $0) }
            ?? LiveRendition(
                folder: (rendition.localPath as NSString).deletingLastPathComponent, kind: rendition.kind)
        let delta: LiveRecorder.Delta
        do {
            let playlist = try MediaPlaylist(text: report.text, url: report.url, allowLive: true)
            let keys = try store.keys(token: token).map {
                PlannedKey(uri: $0.uri, method: $0.method, keyFormat: $0.keyFormat, keyID: $0.keyID)
            }
            delta = try LiveRecorder.merge(
                &state, rendition: position, playlist: playlist, keys: keys, record: record)
        } catch let error as PlaylistError {
            return try reloadFailed(
                TaskFailure(code: .playlist, message: error.description, retryable: true), lease: lease)
        }
        let stateText = String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
        let added = try store.appendLive(
            token: token, rendition: position, live: stateText, lines: delta.lines,
            files: delta.entries.map { Store.LiveFile(resource: $0.resource, isGap: $0.isGap) }, keys: delta.newKeys)
        for r in added { core.enqueue(fetchItem(r)) }
        if !delta.newKeys.isEmpty {
            try self.record(TitleHappening(token, kind: "key", detail: "\(delta.newKeys.count) new key(s) met"))
            core.enqueue(WorkItem(token: token, kind: .license))
        }
        if delta.missed > 0 {
            let message =
                "\(delta.missed) segment(s) of \(rendition.localPath) left the live window before they "
                + "could be fetched: recorded as a gap"
            logger.warning("recording gap", metadata: ["token": "\(token)", "missed": "\(delta.missed)"])
            try self.record(TitleHappening(token, kind: "gap", detail: message))
        }
        memory.liveReloads.reloaded(
            token, rendition: position, changed: delta.changed, target: state.targetDuration,
            startedAt: lease.issuedAt, now: clock.monotonic())
        if state.ended {
            memory.liveReloads.stop(token, rendition: position)
            if !memory.liveReloads.isReloading(token) {
                let reason =
                    record.durationSeconds.map { state.seconds >= $0 - 0.001 }
                        == true ? "the requested duration was recorded" : "the stream ended"
                try endRecording(token, reason: reason)
                return
            }
        }
        publishProgress(token, throttled: true)
    }

    /// A reload failed: tried again within the retry budget; connectivity then waits for the network like any
    /// title; a playlist that stays unusable ends the recording with what it has.
    func reloadFailed(_ failure: TaskFailure, lease: Lease) throws {
        let token = lease.item.token
        guard case .reload(let position) = lease.item.kind, let title = try store.title(token),
            title.state == .recording
        else { return }
        let n = memory.liveReloads.failed(token, rendition: position, now: clock.monotonic())
        logger.info(
            "reload failed", metadata: ["token": "\(token)", "failures": "\(n)", "error": "\(failure.message)"])
        guard n >= options.maxAttempts else { return }
        if failure.code == .network, failure.retryable {
            let url = try store.renditions(token: token).first { $0.position == position }?.sourceURL ?? title.url
            return try suspendForNetwork(
                token, endpoint: failure.endpoint ?? HostProbe.endpoint(of: url),
                message: "\(failure.message) (\(n) reloads in a row failed)")
        }
        try record(TitleHappening(token, kind: "recording-error", detail: failure.message))
        try endRecording(token, reason: "the playlist could not be reloaded: \(failure.message)")
    }

    /// Ends a recording: no more reloads; its offline playlists become VOD; what it found is fetched and
    /// verified, then it completes.
    func endRecording(_ token: String, reason: String) throws {
        guard var title = try store.title(token), isRecording(title) else { return }
        memory.liveReloads.forget(token)
        for r in try store.renditions(token: token) {
            var state = r.live.flatMap { decode(LiveRendition.self, $0) }
            state?.ended = true
            let text = r.playlist.isEmpty ? "" : LiveRecorder.finalText(r.playlist, longest: state?.longest ?? 0)
            try store.setRenditionPlaylist(
                token: token, rendition: r.position, playlist: text,
                live: try state.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) })
        }
        title.recordingEndedAt = clock.now()
        try store.update(title)
        try record(TitleHappening(token, kind: "recording-ended", detail: reason))
        logger.info("recording ended", metadata: ["token": "\(token)", "reason": "\(reason)"])
        let recorded = try store.timeline(token: token).values.joined().contains { $0.state != .gap }
        guard recorded else {
            return try fail(
                token, TitleError(code: .playlist, message: "the recording ended before any segment was recorded"))
        }
        guard title.state == .recording else { return }
        try handle(.recordingEnded, of: token)
        try checkComplete(token)
    }

    /// A segment of a recording that cannot be had (it left the window: 404/410, or it kept failing) is
    /// recorded as a gap instead of failing the title. Returns whether it was.
    func recordingGap(_ r: ResourceRecord, reason: String) throws -> Bool {
        guard [.segment, .subtitle].contains(r.kind), let title = try store.title(r.token), title.record != nil
        else { return false }
        try store.markGap(r, reason: reason)
        try? FileManager.default.removeItem(
            at: options.home.titleDirectory(r.token).appendingPathComponent(r.localPath))
        try record(TitleHappening(r.token, kind: "gap", detail: "\(r.localPath): \(reason)"))
        logger.warning(
            "recording gap", metadata: ["token": "\(r.token)", "file": "\(r.localPath)", "reason": "\(reason)"])
        try checkComplete(r.token)
        return true
    }

    /// `recordedSeconds`, `gaps` and `stalledSince` for `status`.
    func recordingStatus(_ title: TitleRecord, into out: inout TitleStatus) {
        guard title.record != nil, let timeline = try? store.timeline(token: title.token) else { return }
        var recorded = 0.0
        var gaps: [RecordingGap] = []
        for (rendition, rows) in timeline {
            var at = 0.0
            for row in rows {
                if row.state == .gap {
                    gaps.append(RecordingGap(from: at, to: at + row.duration))
                } else if row.state == .verified, rendition == 0 {
                    recorded += row.duration
                }
                at += row.duration
            }
        }
        out.recordedSeconds = (recorded * 1000).rounded() / 1000
        out.gaps = Self.merged(gaps)
        if title.state == .recording, let since = memory.liveReloads.stalledSince(title.token, now: clock.monotonic()) {
            out.stalledSince = iso8601(clock.now() - (clock.monotonic() - since))
        }
    }

    /// Gap ranges of every rendition, overlapping ones merged, in order.
    static func merged(_ gaps: [RecordingGap]) -> [RecordingGap] {
        var out: [RecordingGap] = []
        for g in gaps.sorted(by: { $0.from < $1.from }) {
            if let last = out.last, g.from <= last.to + 0.001 {
                out[out.count - 1].to = max(last.to, g.to)
            } else {
                out.append(RecordingGap(from: (g.from * 1000).rounded() / 1000, to: g.to))
            }
        }
        return out.map { RecordingGap(from: $0.from, to: ($0.to * 1000).rounded() / 1000) }
    }
}

extension SchedulerService {
    /// Keys a recording met during the event (key rotation), fetched by a key-only license task: wrapped and
    /// stored at their positions; the terms granted before stay as they are.
    func applyRecordedKeys(_ grant: LicenseGrant, positions: [Int], lease: Lease) throws {
        let token = lease.item.token
        guard grant.keys.count == positions.count else {
            return try licenseFailed(
                TaskFailure(
                    code: .license, message: "license worker returned \(grant.keys.count) of \(positions.count) keys",
                    retryable: true), lease: lease)
        }
        var wrapped: [Int: Data] = [:]
        let methods = Dictionary(try store.keys(token: token).map { ($0.position, $0.method) }) { a, _ in a }
        for (i, text) in grant.keys.enumerated() {
            let length = PlannedKey.keyLength(method: methods[positions[i]] ?? "AES-128")
            guard let raw = Data(base64Encoded: text), raw.count == length else {
                let message = "key \(positions[i]) is not a \(length)-byte key"
                return try licenseFailed(
                    TaskFailure(code: .license, message: message, retryable: false), lease: lease)
            }
            wrapped[positions[i]] = try vault.wrap(Array(raw), token: token, index: positions[i])
        }
        try store.saveWrappedKeys(token: token, wrapped)
        try record(TitleHappening(token, kind: "key", detail: "\(positions.count) key(s) acquired"))
        if try store.keys(token: token).contains(where: { $0.wrapped == nil }) {
            core.enqueue(WorkItem(token: token, kind: .license))
        }
        try checkComplete(token)
    }
}
