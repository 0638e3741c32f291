import ArgumentParser
import CSystemShims
import Foundation
import Logging
import StowageFetch
import StowageProcess
import StowageProtocol
import StowageRuntime

/// Resolves playlists and fetches resources.
struct DownloadHandler: TaskHandler {
    let fetcher: HTTPFetcher
    let titlesRoot: URL

    func handle(_ task: TaskAssignment, progress: @escaping @Sendable (Int64) -> Void) async -> Outcome {
        var scope = task.scope ?? FetchScope(reach: .public)
        var found: AddressClass?
        if case .resolve = task.work, scope.reach == nil {
            // The title's first resolve: the address its URL reaches decides how far in its files may lie.
            do throws(TaskFailure) {
                found = try await AddressGuard.shared.reach(of: scope)
                scope.reach = found
            } catch {
                return .failed(error)
            }
        }
        let outcome = await HTTPFetcher.$scope.withValue(scope) { await perform(task, progress: progress) }
        if case .resolved(var plan) = outcome, case .resolve(let work) = task.work {
            // A plan whose numbers the scheduler would refuse to read fails here, naming the field, rather than
            // being dropped there and resolved again without end.
            if let problem = plan.numberProblem {
                return .failed(
                    TaskFailure(
                        code: .playlist, message: "\(URLRedaction.redacted(work.url)): \(problem)", retryable: false))
            }
            if let found { plan.reach = found }
            return .resolved(plan)
        }
        return outcome
    }

    private func perform(_ task: TaskAssignment, progress: @escaping @Sendable (Int64) -> Void) async -> Outcome {
        do {
            switch task.work {
            case .resolve(let work) where work.peer == true:
                return .resolved(try await PeerManifestResolver(fetcher: fetcher).resolve(work))
            case .resolve(let work):
                return .resolved(try await PlaylistResolver(fetcher: fetcher).resolve(work))
            case .reload(let work):
                return .reloaded(try await LiveReloader(fetcher: fetcher).reload(work))
            case .fetch(let work):
                return .fetched(
                    try await fetcher.download(
                        work, taskID: task.taskID, titlesRoot: titlesRoot,
                        progress: progress))
            case .fetchBatch(let batch):
                return .fetchedBatch(
                    await fetcher.downloadBatch(
                        batch, taskID: task.taskID, titlesRoot: titlesRoot, progress: progress))
            default:
                let message = "download worker got a \(task.work.workerKind) task"
                return .failed(TaskFailure(code: .internal, message: message, retryable: false))
            }
        } catch {
            return .failed(error)
        }
    }

    func apply(_ limits: WorkerLimits) { fetcher.rateLimiter.setRate(limits.bytesPerSecond) }
}

struct DownloadWorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stowage-download-worker",
        abstract: "Resolves HLS playlists and fetches segments, init sections and subtitles for Stowage.",
        discussion: """
            Streams every file to disk (a .part file hashed and container-checked as it arrives, renamed into \
            place, then synced with the other files finishing at the same time) and reports it only once it is \
            durable; never holds a whole segment in memory. Small files come in batches of up to 64 per task. \
            Connects to the scheduler (default \
            ipc://$STOWAGE_HOME/run/scheduler.ipc). SIGTERM stops it gracefully: tasks in flight get a grace period \
            to finish.
            """)

    @OptionGroup var options: WorkerOptions

    func run() async throws {
        // It parses hostile input: other processes of its user may not read its memory (the title's headers).
        _ = stowage_forbid_inspection()
        try await options.runWorker(kind: .download, defaultConcurrency: 8) { home, capacity, logger in
            try FileManager.default.createDirectory(at: home.titlesRoot, withIntermediateDirectories: true)
            let fetcher = HTTPFetcher(logger: logger, connectionsPerHost: capacity)
            return (DownloadHandler(fetcher: fetcher, titlesRoot: home.titlesRoot), { await fetcher.shutdown() })
        }
    }
}

await DownloadWorkerCommand.topLevelMain()
