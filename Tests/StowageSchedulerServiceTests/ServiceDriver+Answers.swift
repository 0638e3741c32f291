import Foundation
import StowageProtocol

/// Answers that name the file they are about: a fetch task's items answered one by one (a batch item by item), and
/// waiting on what a thread of the service's own posts back (a host probe).
extension ServiceDriver {
    /// The URLs a fetch task carries (one, or a batch's in order); empty for other work.
    static func urls(_ task: TaskAssignment) -> [String] {
        switch task.work {
        case .fetch(let work): return [work.url]
        case .fetchBatch(let batch): return batch.items.map(\.url)
        default: return []
        }
    }

    /// Answers a fetch task file by file: `outcome` says what became of each URL (nil: fetched and hashed).
    func answerFetch(_ worker: String, _ task: TaskAssignment, _ outcome: (String) -> TaskFailure?) throws {
        switch task.work {
        case .fetch(let work):
            answer(worker, task, outcome(work.url).map { .failed($0) } ?? .fetched(Self.hashed(1_000)))
        case .fetchBatch(let batch):
            let results = batch.items.map { item -> FetchItemResult in
                outcome(item.url).map { .failed($0) } ?? .fetched(Self.hashed(1_000))
            }
            answer(worker, task, .fetchedBatch(FetchBatchReport(results: results)))
        default:
            throw DriverError("not a fetch task: \(task.work)")
        }
    }

    /// Passes of the loop (no time passes) until `done` holds: for what a thread of the service posts to its loop,
    /// such as a host probe's answer. Gives up after `seconds` of real time, saying what it waited for.
    func passUntil(_ what: String, seconds: Int = 10, _ done: () throws -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while try !done() {
            guard ContinuousClock.now < deadline else { throw DriverError("waited \(seconds) s for \(what)") }
            tick()
            Thread.sleep(forTimeInterval: 0.002)
        }
    }
}

extension ServiceDriver {
    /// The one resolve task among what `worker` was sent now; other tasks stay out, unanswered.
    func resolveTask(_ worker: String) throws -> TaskAssignment {
        let tasks = try tasks(for: worker)
        let resolves = tasks.filter { if case .resolve = $0.work { true } else { false } }
        guard resolves.count == 1 else { throw DriverError("\(resolves.count) resolves, not one: \(tasks)") }
        return resolves[0]
    }
}
