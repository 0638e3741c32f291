import Foundation
import StowageProtocol
import StowageSchedulerCore

extension SchedulerService {
    /// A title whose handling crashed the previous run (``CrashJournal``) is failed before any work is handed out,
    /// with the reason in its status: handing it the same work would crash the scheduler again, at every start, and
    /// stop the box for every other title. Nothing of it is deleted: its files and record stay for the operator.
    func failAfterCrash() throws {
        guard let crash = journal.previousCrash else { return }
        guard let title = try store.title(crash.token) else {
            logger.error(
                "the previous run crashed while handling a title that is gone", metadata: ["token": "\(crash.token)"])
            return
        }
        let error = TitleError(
            code: .internal,
            message: "the scheduler crashed while handling \(crash.doing) (the log of the previous run says where): "
                + "the title was failed so that the box keeps running; delete it, or resume it once the cause is fixed")
        logger.error(
            "failing the title whose handling crashed the previous run",
            metadata: [
                "token": "\(crash.token)", "doing": "\(crash.doing)",
            ])
        if title.state == .canceled || title.state == .failed {
            try record(TitleHappening(crash.token, kind: "crash", detail: error.message))
        } else {
            try fail(crash.token, error)
        }
    }

    /// Titles whose work died with ``CrashSuspects/threshold`` workers in a row are failed with the reason: the next
    /// worker would die of the same input.
    func failCrashSuspects(_ items: [WorkItem]) {
        for item in items {
            let kind = item.kind.workerKind.rawValue
            let error = TitleError(
                code: .internal,
                message: "\(CrashSuspects.threshold) \(kind) workers died while handling its \(item.kind) task "
                    + "(its input likely crashes them: their logs say where); the title was failed so that the other "
                    + "titles go on; delete it, or resume it once the cause is fixed")
            logger.error("failing a title whose task keeps killing workers", metadata: ["item": "\(item)"])
            do { try fail(item.token, error) } catch {
                logger.error("could not fail the title", metadata: ["item": "\(item)", "error": "\(error)"])
            }
        }
    }
}
