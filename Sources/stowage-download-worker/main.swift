import ArgumentParser
import Foundation
import Logging
import StowageFetch
import StowageProtocol
import StowageRuntime

/// Resolves playlists and fetches resources.
struct DownloadHandler: TaskHandler {
    let fetcher: HTTPFetcher
    let titlesRoot: URL

    func handle(_ task: TaskAssignment, progress: @escaping @Sendable (Int64) -> Void) async -> Outcome {
        do {
            switch task.work {
            case .resolve(let work):
                return .resolved(try await PlaylistResolver(fetcher: fetcher).resolve(work))
            case .fetch(let work):
                return .fetched(try await fetcher.download(work, taskID: task.taskID, titlesRoot: titlesRoot, progress: progress))
            default:
                return .failed(TaskFailure(code: .internal, message: "download worker got a \(task.work.workerKind) task", retryable: false))
            }
        } catch {
            return .failed(error)
        }
    }

    func apply(_ limits: WorkerLimits) { fetcher.rateLimiter.setRate(limits.bytesPerSecond) }
}

struct DownloadWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stowage-download-worker",
        abstract: "Resolves HLS playlists and fetches segments, init sections and subtitles for Stowage.",
        discussion: """
        Streams every file to disk (a .part file, then rename) while hashing it; never holds a whole
        segment in memory. Connects to the scheduler (default ipc://$STOWAGE_HOME/run/scheduler.ipc).
        """)

    @Option(help: "Stowage home. Default: $STOWAGE_HOME or ~/.stowage.")
    var home: String?
    @Option(help: "Scheduler endpoint, e.g. tcp://host:7700. Default: the ipc socket in $STOWAGE_HOME/run.")
    var scheduler: String?
    @Option(help: "Fetches this worker runs at once (default 8).")
    var concurrency: Int?
    @Option(help: "Write this process's pid to FILE.")
    var pidfile: String?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error, critical.")
    var logLevel: String?

    func run() throws {
        LogSetup.bootstrap(level: logLevel)
        let logger = Logger(label: "stowage.download-worker")
        let home = StowageHome(option: home)
        let endpoint = home.schedulerEndpoint(option: scheduler)
        do {
            try checkEndpoint(endpoint)
            try FileManager.default.createDirectory(at: home.titlesRoot, withIntermediateDirectories: true)
            writePidFile(pidfile ?? environmentOption("pidfile"))
            let capacity = intOption(concurrency, "concurrency", default: 8)
            let fetcher = HTTPFetcher(logger: logger, connectionsPerHost: capacity)
            let runtime = try WorkerRuntime(options: .init(kind: .download, capacity: capacity, endpoint: endpoint),
                                            handler: DownloadHandler(fetcher: fetcher, titlesRoot: home.titlesRoot),
                                            shutdown: ShutdownSignal(), logger: logger)
            defer { fetcher.syncShutdown() }
            try runtime.run()
        } catch {
            logger.critical("download worker cannot run: \(error)")
            throw ExitCode(1)
        }
    }
}

DownloadWorkerCommand.main()
