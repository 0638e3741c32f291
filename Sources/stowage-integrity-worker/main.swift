import ArgumentParser
import Foundation
import Logging
import StowageIntegrity
import StowageProtocol
import StowageRuntime

/// Verifies stored files: length, container structure, SHA-256 re-read from disk.
struct IntegrityHandler: TaskHandler {
    let titlesRoot: URL

    func handle(_ task: TaskAssignment, progress: @escaping @Sendable (Int64) -> Void) async -> Outcome {
        guard case .verify(let work) = task.work else {
            return .failed(TaskFailure(code: .internal, message: "integrity worker got a \(task.work.workerKind) task", retryable: false))
        }
        let parts = work.path.split(separator: "/", omittingEmptySubsequences: false)
        guard !work.path.hasPrefix("/"), !parts.contains(where: { $0 == ".." || $0.isEmpty }) else {
            return .failed(TaskFailure(code: .refused, message: "path '\(work.path.prefix(200))' is outside the titles directory", retryable: false))
        }
        let path = titlesRoot.appendingPathComponent(work.path).path
        let kind: ContainerCheck.Kind = work.encrypted ? .other : (ContainerCheck.Kind(rawValue: work.container.rawValue) ?? .other)
        let verdict = FileVerifier.verify(path: path, expectedBytes: work.expectedBytes, expectedSHA256: work.sha256, container: kind)
        return .verified(VerifyReport(ok: verdict.problem == nil, reason: verdict.problem.map { "\(work.path): \($0)" }))
    }
}

struct IntegrityWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stowage-integrity-worker",
        abstract: "Verifies what Stowage fetched and what is at rest: length, container sanity, SHA-256.",
        discussion: "Stateless; run any number. Connects to the scheduler (default ipc://$STOWAGE_HOME/run/scheduler.ipc).")

    @Option(help: "Stowage home. Default: $STOWAGE_HOME or ~/.stowage.")
    var home: String?
    @Option(help: "Scheduler endpoint, e.g. tcp://host:7700. Default: the ipc socket in $STOWAGE_HOME/run.")
    var scheduler: String?
    @Option(help: "Files verified at once (default 2).")
    var concurrency: Int?
    @Option(help: "Write this process's pid to FILE.")
    var pidfile: String?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error, critical.")
    var logLevel: String?

    func run() throws {
        LogSetup.bootstrap(level: logLevel)
        let logger = Logger(label: "stowage.integrity-worker")
        let home = StowageHome(option: home)
        let endpoint = home.schedulerEndpoint(option: scheduler)
        do {
            try checkEndpoint(endpoint)
            writePidFile(pidfile ?? environmentOption("pidfile"))
            let runtime = try WorkerRuntime(options: .init(kind: .integrity, capacity: intOption(concurrency, "concurrency", default: 2), endpoint: endpoint),
                                            handler: IntegrityHandler(titlesRoot: home.titlesRoot), shutdown: ShutdownSignal(), logger: logger)
            try runtime.run()
        } catch {
            logger.critical("integrity worker cannot run: \(error)")
            throw ExitCode(1)
        }
    }
}

IntegrityWorkerCommand.main()
