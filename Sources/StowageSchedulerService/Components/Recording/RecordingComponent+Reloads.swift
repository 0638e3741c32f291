import Foundation
import StowageHLS
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// The results of reload tasks: a reloaded playlist's new segments, keys and gaps, or a reload that failed.
extension RecordingComponent {
    /// A reloaded playlist: what is new is stored and queued; the end ends the recording.
    func applyReload(_ report: ReloadReport, rendition position: Int, lease: Lease) throws {
        let token = lease.item.token
        let store = context.store
        guard let title = try store.title(token), title.state == .recording, let record = title.record,
            let rendition = try store.renditions(token: token).first(where: { $0.position == position })
        else { return }
        if title.manifestName != nil {
            return try applyDASHReload(report, title: title, record: record, lease: lease)
        }
        var state =
            Self.liveState(rendition)
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
        for r in added { pipeline.enqueue(pipeline.fetchItem(r), at: nil) }
        try keysMet(token, count: delta.newKeys.count)
        try noteGap(token, missed: delta.missed, of: rendition.localPath, window: "live window")
        reloaded(token, rendition: position, changed: delta.changed, target: state.targetDuration, lease: lease)
        if state.ended {
            reloads.stop(token, rendition: position)
            if !reloads.isReloading(token) {
                let reason =
                    record.durationSeconds.map { state.seconds >= $0 - 0.001 }
                        == true ? "the requested duration was recorded" : "the stream ended"
                try end(token, reason: reason)
                return
            }
        }
        pipeline.publishProgress(token, throttled: true)
    }

    /// New keys met during the event (HLS key rotation, a DASH key change at a Period): acquired as the title's
    /// keys are (``acquireMissingKeys(_:)``); the terms already granted stay.
    func keysMet(_ token: String, count: Int) throws {
        guard count > 0 else { return }
        try context.desk.record(TitleHappening(token, kind: "key", detail: "\(count) new key(s) met"))
        try acquireMissingKeys(token)
    }

    /// Segments of `path` that left the `window` before they could be fetched: logged and told as a gap.
    func noteGap(_ token: String, missed: Int, of path: String, window: String) throws {
        guard missed > 0 else { return }
        let message =
            "\(missed) segment(s) of \(path) left the \(window) before they could be fetched: recorded as a gap"
        context.logger.warning("recording gap", metadata: ["token": "\(token)", "missed": "\(missed)"])
        try context.desk.record(TitleHappening(token, kind: "gap", detail: message))
    }

    /// A reload's pacing: the next one a target duration after this one began (sooner or later as it changed).
    func reloaded(_ token: String, rendition: Int, changed: Bool, target: Double, lease: Lease) {
        reloads.reloaded(
            token, rendition: rendition, changed: changed, target: target, startedAt: lease.issuedAt,
            now: context.clock.monotonic())
    }

    /// A reload failed: tried again within the retry budget; connectivity then waits for the network like any
    /// title; a playlist that stays unusable ends the recording with what it has.
    func reloadFailed(_ failure: TaskFailure, lease: Lease) throws {
        let token = lease.item.token
        guard case .reload(let position) = lease.item.kind, let title = try context.store.title(token),
            title.state == .recording
        else { return }
        let n = reloads.failed(token, rendition: position, now: context.clock.monotonic())
        context.logger.info(
            "reload failed", metadata: ["token": "\(token)", "failures": "\(n)", "error": "\(failure.message)"])
        guard n >= maxAttempts else { return }
        if failure.code == .network, failure.retryable {
            let url =
                try context.store.renditions(token: token).first { $0.position == position }?.sourceURL ?? title.url
            return try pipeline.suspendForNetwork(
                token, endpoint: failure.endpoint ?? HostProbe.endpoint(of: url),
                message: "\(failure.message) (\(n) reloads in a row failed)")
        }
        try context.desk.record(TitleHappening(token, kind: "recording-error", detail: failure.message))
        try end(token, reason: "the playlist could not be reloaded: \(failure.message)")
    }
}
