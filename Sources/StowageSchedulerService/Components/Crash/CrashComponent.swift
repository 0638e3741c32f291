import Foundation
import StowageProtocol
import StowageSchedulerCore

/// Titles whose input crashes the scheduler or its workers are failed, with the reason, so that the box keeps
/// running for the others: the title whose handling crashed the previous run (``CrashJournal``), before any work
/// is handed out, and a title whose task died with ``CrashSuspects/threshold`` workers in a row (``CrashSuspects``).
/// Nothing of such a title is deleted: its files and record stay for the operator.
final class CrashComponent: SchedulerComponent {
    let name = "crash"
    private let context: ComponentContext
    /// What the previous run was handling when it died (nil: it stopped cleanly).
    private let previousCrash: CrashJournal.Crash?
    private var suspects = CrashSuspects()

    init(context: ComponentContext, previousCrash: CrashJournal.Crash?) {
        self.context = context
        self.previousCrash = previousCrash
    }

    /// Start-up, before recovery: handing the crashed title the same work would crash the scheduler again, at
    /// every start, and stop the box for every other title.
    func failAfterCrash() throws {
        guard let crash = previousCrash else { return }
        guard let title = try context.store.title(crash.token) else {
            context.logger.error(
                "the previous run crashed while handling a title that is gone", metadata: ["token": "\(crash.token)"])
            return
        }
        let error = CrashSuspects.schedulerCrashed(doing: crash.doing)
        context.logger.error(
            "failing the title whose handling crashed the previous run",
            metadata: ["token": "\(crash.token)", "doing": "\(crash.doing)"])
        if title.state == .canceled || title.state == .failed {
            try context.desk.record(TitleHappening(crash.token, kind: "crash", detail: error.message))
        } else {
            try context.desk.fail(crash.token, error)
        }
    }

    /// Items taken back from workers declared dead: a title whose item died with too many workers is failed (the
    /// next worker would die of the same input).
    func lost(_ items: [WorkItem]) {
        for item in suspects.lost(items) {
            context.logger.error("failing a title whose task keeps killing workers", metadata: ["item": "\(item)"])
            do { try context.desk.fail(item.token, CrashSuspects.workersDied(of: item)) } catch {
                context.logger.error("could not fail the title", metadata: ["item": "\(item)", "error": "\(error)"])
            }
        }
    }

    /// An item whose result came back: its count starts again.
    func completed(_ item: WorkItem) { suspects.completed(item) }

    func forget(_ token: String) { suspects.forget(token) }
}
