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
///
/// A stage of the pipeline: it moves its titles through ``PipelineDesk`` (the lifecycle's recording events, the
/// queue, completion) and owns the reload timers and the key-only license tasks of recordings.
final class RecordingComponent: SchedulerComponent {
    let name = "recording"
    let context: ComponentContext
    /// The pipeline's own moves (unowned: the service owns its components).
    unowned let pipeline: any PipelineDesk
    /// Reloads in a row that may fail before the recording waits for the network or ends.
    let maxAttempts: Int
    /// When each rendition of each recording reloads next, and which stalled.
    var reloads = LiveReloads()
    /// Key-only license tasks out for keys a recording met during the event (task id → key positions asked).
    var keyRequests: [String: [Int]] = [:]

    init(context: ComponentContext, pipeline: any PipelineDesk, maxAttempts: Int) {
        self.context = context
        self.pipeline = pipeline
        self.maxAttempts = maxAttempts
    }

    /// Queues the reloads that are due (every pass: a reload's time is a target duration, seconds at most).
    func tick(now: Double) {
        guard !reloads.isEmpty else { return }
        for (token, rendition) in reloads.due(now: now) {
            guard let title = try? context.store.title(token),
                let renditions = try? context.store.renditions(token: token),
                let r = renditions.first(where: { $0.position == rendition })
            else {
                reloads.stop(token, rendition: rendition)
                continue
            }
            guard title.isRecording, title.state == .recording else {
                reloads.forget(token)
                continue
            }
            pipeline.enqueue(
                WorkItem(token: token, kind: .reload(rendition: rendition), host: URL(string: r.sourceURL)?.host),
                at: nil)
        }
    }

    func forget(_ token: String) { reloads.forget(token) }

    /// Licensed: the recording starts (or carries on, after a restart or a resume). The pipeline then queues its
    /// work as for any recording (its files, ``queueMissingKeys(_:)``, ``scheduleReloads(_:)``).
    func begin(_ token: String) throws {
        guard var title = try context.store.title(token) else { return }
        title.startedAt = title.startedAt ?? context.clock.now()
        try context.store.update(title)
        try pipeline.handle(.recordingStarted, of: token)
    }

    /// A title with no verified file: a recording that ended with nothing it could fetch has nothing to complete,
    /// and fails.
    func endedEmpty(_ token: String) throws {
        guard let title = try context.store.title(token), title.record != nil, title.recordingEndedAt != nil,
            !title.state.isFinal
        else { return }
        try context.desk.fail(
            token, TitleError(code: .playlist, message: "no segment of the recording could be fetched"))
    }

    /// Every rendition not ended is due for a reload now. One whose renditions all ended (a restart between the
    /// last reload and the end of the recording) ends now.
    func scheduleReloads(_ title: TitleRecord) throws {
        guard title.isRecording else { return }
        if title.manifestName != nil { return try scheduleDASHReload(title) }
        var reloading = false
        for r in try context.store.renditions(token: title.token) {
            let live = Self.liveState(r).map { (ended: $0.ended, target: $0.targetDuration) }
            guard live?.ended != true else { continue }
            reloading = true
            reloads.start(
                title.token, rendition: r.position, target: live?.target ?? 6,
                now: context.clock.monotonic())
        }
        if !reloading { try end(title.token, reason: "every rendition had ended") }
    }

    /// Ends a recording: no more reloads; its offline playlists become VOD; what it found is fetched and
    /// verified, then it completes.
    func end(_ token: String, reason: String) throws {
        let store = context.store
        guard var title = try store.title(token), title.isRecording else { return }
        reloads.forget(token)
        if title.manifestName != nil {
            try endDASH(&title)
        } else {
            try endHLS(token)
        }
        title.recordingEndedAt = context.clock.now()
        try store.update(title)
        try context.desk.record(TitleHappening(token, kind: "recording-ended", detail: reason))
        context.logger.info("recording ended", metadata: ["token": "\(token)", "reason": "\(reason)"])
        let recorded = try store.timeline(token: token).values.joined().contains { $0.state != .gap }
        guard recorded else {
            return try context.desk.fail(
                token, TitleError(code: .playlist, message: "the recording ended before any segment was recorded"))
        }
        guard title.state == .recording else { return }
        try pipeline.handle(.recordingEnded, of: token)
        try pipeline.checkComplete(token)
    }

    /// The offline playlists of an HLS recording become VOD.
    private func endHLS(_ token: String) throws {
        let store = context.store
        for r in try store.renditions(token: token) {
            var state = Self.liveState(r)
            state?.ended = true
            let text = r.playlist.isEmpty ? "" : LiveRecorder.finalText(r.playlist, longest: state?.longest ?? 0)
            try store.setRenditionPlaylist(
                token: token, rendition: r.position, playlist: text,
                live: try state.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) })
        }
    }

    /// A segment of a recording that cannot be had (it left the window: 404/410, or it kept failing) is
    /// recorded as a gap instead of failing the title. Returns whether it was.
    func gap(_ r: ResourceRecord, reason: String) throws -> Bool {
        guard [.segment, .subtitle].contains(r.kind), let title = try context.store.title(r.token), title.record != nil
        else { return false }
        try context.store.markGap(r, reason: reason)
        try? FileManager.default.removeItem(
            at: context.home.titleDirectory(r.token).appendingPathComponent(r.localPath))
        try context.desk.record(TitleHappening(r.token, kind: "gap", detail: "\(r.localPath): \(reason)"))
        context.logger.warning(
            "recording gap", metadata: ["token": "\(r.token)", "file": "\(r.localPath)", "reason": "\(reason)"])
        try pipeline.checkComplete(r.token)
        return true
    }

    /// A rendition's live state as stored (nil before its first reload).
    static func liveState(_ r: RenditionRecord) -> LiveRendition? {
        r.live.flatMap { try? JSONDecoder().decode(LiveRendition.self, from: Data($0.utf8)) }
    }
}
