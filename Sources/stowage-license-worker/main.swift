import ArgumentParser
import Foundation
import Logging
import StowageFetch
import StowageProtocol
import StowageRuntime

/// Answers license tasks: grants the requested terms, or asks the title's license API; fetches the
/// AES-128 content keys from their key URIs (HLS key delivery) unless the license API sent them.
struct LicenseHandler: TaskHandler {
    let fetcher: HTTPFetcher

    func handle(_ task: TaskAssignment, progress: @escaping @Sendable (Int64) -> Void) async -> Outcome {
        guard case .license(let work) = task.work else {
            return .failed(TaskFailure(code: .internal, message: "license worker got a \(task.work.workerKind) task", retryable: false))
        }
        do {
            return .licensed(try await fetcher.acquireLicense(work))
        } catch {
            return .failed(error)
        }
    }
}

struct LicenseWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stowage-license-worker",
        abstract: "Acquires, renews and releases the licenses and content keys of Stowage titles.",
        discussion: "Connects to the scheduler (default ipc://$STOWAGE_HOME/run/scheduler.ipc). SIGTERM stops it gracefully.")

    @Option(help: "Stowage home. Default: $STOWAGE_HOME or ~/.stowage.")
    var home: String?
    @Option(help: "Scheduler endpoint, e.g. tcp://host:7700. Default: the ipc socket in $STOWAGE_HOME/run.")
    var scheduler: String?
    @Option(help: "License requests this worker runs at once (default 4).")
    var concurrency: Int?
    @Option(help: "Write this process's pid to FILE.")
    var pidfile: String?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error, critical.")
    var logLevel: String?

    func run() throws {
        LogSetup.bootstrap(level: logLevel)
        let logger = Logger(label: "stowage.license-worker")
        let home = StowageHome(option: home)
        let endpoint = home.schedulerEndpoint(option: scheduler)
        do {
            try checkEndpoint(endpoint)
            writePidFile(pidfile ?? environmentOption("pidfile"))
            let fetcher = HTTPFetcher(logger: logger)
            defer { fetcher.syncShutdown() }
            let runtime = try WorkerRuntime(options: .init(kind: .license, capacity: intOption(concurrency, "concurrency", default: 4), endpoint: endpoint),
                                            handler: LicenseHandler(fetcher: fetcher), shutdown: ShutdownSignal(), logger: logger)
            try runtime.run()
        } catch {
            logger.critical("license worker cannot run: \(error)")
            throw ExitCode(1)
        }
    }
}

LicenseWorkerCommand.main()
