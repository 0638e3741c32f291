import ArgumentParser
import CSystemShims
import Foundation
import Logging
import StowageFetch
import StowageLicenseAcquisition
import StowageProcess
import StowageProtocol
import StowageRuntime

/// Answers license tasks: grants the requested terms, or asks the title's license API; fetches the
/// AES-128 content keys from their key URIs (HLS key delivery) unless the license API sent them.
struct LicenseHandler: TaskHandler {
    let fetcher: HTTPFetcher

    func handle(_ task: TaskAssignment, progress: @escaping @Sendable (Int64) -> Void) async -> Outcome {
        guard case .license(let work) = task.work else {
            return .failed(
                TaskFailure(
                    code: .internal, message: "license worker got a \(task.work.workerKind) task",
                    retryable: false))
        }
        return await HTTPFetcher.$scope.withValue(task.scope ?? FetchScope(reach: .public)) {
            do throws(TaskFailure) {
                return .licensed(try await fetcher.acquireLicense(work))
            } catch {
                return .failed(error)
            }
        }
    }
}

struct LicenseWorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stowage-license-worker",
        abstract: "Acquires, renews and releases the licenses and content keys of Stowage titles.",
        discussion: """
            Connects to the scheduler (default ipc://$STOWAGE_HOME/run/scheduler.ipc). SIGTERM stops it gracefully.
            """)

    @OptionGroup var options: WorkerOptions

    func run() async throws {
        // It holds content keys on their way to the scheduler: other processes of its user may not read them.
        _ = stowage_forbid_inspection()
        try await options.runWorker(kind: .license, defaultConcurrency: 4) { _, _, logger in
            let fetcher = HTTPFetcher(logger: logger)
            return (LicenseHandler(fetcher: fetcher), { await fetcher.shutdown() })
        }
    }
}

await LicenseWorkerCommand.topLevelMain()
