import Foundation
import StowageIntegrity
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// Verification at rest: `stowctl verify [--repair]` sends every file of a completed title back to the integrity
/// workers, and the background scrub (`--scrub-interval`) checks one completed title at a time, the one verified
/// longest ago, while it stays playable. A run without repair records bad files instead of fetching them again;
/// the title then completes with an integrity error naming them. It answers `gc` too (what is on disk but no
/// title's).
///
/// A stage of the pipeline: the results of verify tasks take the download's path (``SchedulerService``'s results)
/// and consult this component's hooks (``recordResult(_:ok:reason:)``, ``finishIfDone(_:)``).
final class VerificationComponent: SchedulerComponent {
    let name = "verification"
    let context: ComponentContext
    /// The pipeline's own moves (unowned: the service owns its components).
    private unowned let pipeline: any PipelineDesk
    /// `--scrub-interval` (nil or 0: no scrub) and the read rate of a scrub's checks.
    private let scrubInterval: Double?
    private let scrubBytesPerSecond: Int64?
    /// Whether a folder under `titles/` is an import being checked (`gc` leaves it).
    let isStaging: (String) -> Bool
    /// Runs under way and when the scrub last checked each title.
    private var runs = VerifyRuns()
    /// The scrub looks for a title due every 10 s.
    private var scrubDue = Every(seconds: 10)

    init(
        context: ComponentContext, pipeline: any PipelineDesk, scrubInterval: Double?, scrubBytesPerSecond: Int64?,
        isStaging: @escaping (String) -> Bool
    ) {
        self.context = context
        self.pipeline = pipeline
        self.scrubInterval = scrubInterval
        self.scrubBytesPerSecond = scrubBytesPerSecond
        self.isStaging = isStaging
    }

    func tick(now: Double) {
        if scrubDue.isDue(now: now) { scrub() }
    }

    func answer(_ request: ComponentRequest) throws -> ReplyBody? {
        switch request.operation {
        case .verify(let token, let repair):
            try start(token, repair: repair)
            return .title(try context.desk.status(token))
        case .gc:
            return .removed(try collectGarbage())
        default:
            return nil
        }
    }

    func forget(_ token: String) { runs.forget(token) }

    /// Whether the title's run is a scrub (its results count for a completed title, which stays completed).
    func isScrub(_ token: String) -> Bool { runs.isScrub(token) }

    /// The read rate of a check of the title's file: the scrub's (nil: as fast as the disk goes).
    func readLimit(_ token: String) -> Int64? { runs.isScrub(token) ? scrubBytesPerSecond : nil }

    /// Background scrub: one completed title at a time, the one verified longest ago, once per interval.
    private func scrub() {
        guard let interval = scrubInterval, interval > 0, !runs.scrubRunning,
            let titles = try? context.store.titles(state: .completed)
        else { return }
        let candidates = titles.filter { $0.errorCode == nil }.map {
            VerifyRuns.Candidate(token: $0.token, endedAt: $0.endedAt)
        }
        guard let token = runs.nextScrub(among: candidates, now: context.clock.now(), interval: interval) else {
            return
        }
        context.logger.info("scrub: verifying at rest", metadata: ["token": "\(token)"])
        do {
            try start(token, repair: false, scrub: true)
        } catch {
            context.logger.warning("scrub could not start", metadata: ["token": "\(token)", "error": "\(error)"])
        }
    }

    /// `verify`: every file goes back to the integrity workers; with `repair`, bad ones are fetched again.
    /// A scrub leaves the title `completed` (and playable) while it runs.
    private func start(_ token: String, repair: Bool, scrub: Bool = false) throws {
        let store = context.store
        guard let title = try store.title(token) else { throw TitleError.noTitle(token) }
        guard title.state == .completed else {
            throw TitleError(
                code: .refused,
                message: "title \(token) is \(title.state.rawValue): only completed titles are verified at rest")
        }
        if repair, let reason = pipeline.licenseRefusal(title) {
            throw TitleError(code: .license, message: "cannot repair: \(reason)")
        }
        if scrub {
            runs.start(token, repair: false, scrub: true)
            pipeline.joinQueue(token, priority: title.priority - 1_000, requestedAt: title.requestedAt)
            for r in try store.resources(token: token) where r.bytes != nil {
                pipeline.enqueue(WorkItem(token: token, kind: .verify(resource: r.id!)), at: nil)
            }
            return
        }
        var record = title
        record.errorCode = nil
        record.errorMessage = nil
        try store.update(record)
        runs.start(token, repair: repair)
        pipeline.joinQueue(token, priority: title.priority + 1_000, requestedAt: title.requestedAt)
        for var r in try store.resources(token: token) where r.state != .gap {  // a recording's gaps stay gaps
            // A file the box writes (its subtitles as text, its single file) is written by its verify task, never
            // fetched.
            let fetch = r.bytes == nil && !r.kind.isWrittenByBox
            r.state = fetch ? .pending : .fetched
            try store.update(r)
            pipeline.enqueue(
                fetch ? pipeline.fetchItem(r) : WorkItem(token: token, kind: .verify(resource: r.id!)), at: nil)
        }
        try pipeline.handle(.reverify, of: token)
    }

    /// A verification result during a verify run without repair: a bad file is recorded, not fetched.
    /// Returns false when the result should take the normal path (download, or repair).
    func recordResult(_ resource: ResourceRecord, ok: Bool, reason: String?) throws -> Bool {
        guard !ok, runs.recordFailure(resource.token, reason: reason ?? resource.localPath) else {
            return false
        }
        try finishIfDone(resource.token)
        return true
    }

    /// When a verify run has nothing left: completed again, or completed with an integrity error listing
    /// the bad files (and so not playable).
    func finishIfDone(_ token: String) throws {
        guard runs[token] != nil, !pipeline.hasWork(token) else { return }
        // A clean verify run (not a scrub) is left to checkComplete, which completes it.
        switch runs.finish(token) {
        case nil:
            return
        case .cleanScrub:  // nothing changes but the record of it
            pipeline.leaveQueue(token)
            try context.desk.record(TitleHappening(token, kind: "scrub", detail: "every file verified at rest"))
            return
        case .badFiles(let bad):
            pipeline.leaveQueue(token)
            let message =
                "\(bad.count) file(s) failed verification: " + bad.prefix(20).joined(separator: "; ")
                + (bad.count > 20 ? "; …" : "") + ". Run `stowctl verify \(token) --repair` to fetch them again."
            try pipeline.handle(.badFilesFound(TitleError(code: .integrity, message: message)), of: token)
            try context.desk.record(TitleHappening(token, kind: "verify", detail: message, published: "state"))
        }
    }
}
