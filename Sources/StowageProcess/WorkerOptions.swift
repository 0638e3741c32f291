import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import StowageProtocol
import StowageRuntime

/// The options every worker executable takes: the process options, the scheduler to connect to and how many
/// tasks to run at once.
public struct WorkerOptions: ParsableArguments {
    /// The options every long-running process takes.
    @OptionGroup(title: "Process options")
    public var process: ProcessOptions
    /// `--scheduler`: the endpoint to connect to, or several (a farm's schedulers; one at a time).
    @Option(
        help: ArgumentHelp(
            """
            Scheduler endpoint, e.g. tcp://host:7700, or several separated by commas (a farm's schedulers: the \
            worker moves to the next when its scheduler falls silent). Default: the ipc socket in \
            $STOWAGE_HOME/run. [env: STOWAGE_SCHEDULER]
            """, valueName: "endpoints"))
    public var scheduler: String?
    /// `--curve-server-key`: the scheduler's public key, for a tcp endpoint.
    @Option(
        name: .customLong("curve-server-key"),
        help: ArgumentHelp(
            """
            The scheduler's CURVE public key, or its .pub file; required for a tcp:// scheduler. \
            [env: STOWAGE_CURVE_SERVER_KEY]
            """, valueName: "key|file"))
    public var curveServerKey: String?
    /// `--concurrency`: tasks at once.
    @Option(help: ArgumentHelp("Tasks this worker runs at once, 1 to 1000. [env: STOWAGE_CONCURRENCY]", valueName: "n"))
    public var concurrency: Int?

    /// Options as not given (ArgumentParser fills them in).
    public init() {}

    /// Each option from its flag, else its `STOWAGE_` variable; a bad value of either stops the start (exit 2).
    public mutating func validate() throws {
        scheduler = try EnvironmentRule.resolve(scheduler, "scheduler", check: OptionChecks.schedulerEndpoints)
        curveServerKey = try EnvironmentRule.resolve(
            curveServerKey, "curve-server-key", check: OptionChecks.curveServerKey)
        concurrency = try EnvironmentRule.resolve(concurrency, "concurrency") {
            (1...1_000).contains($0) ? nil : "must be between 1 and 1000"
        }
    }

    /// What a worker executable provides: its task handler, and what to do once the loop has stopped.
    public typealias Parts = (handler: any TaskHandler, cleanup: @Sendable () async -> Void)

    /// Wires a worker process: logging, home, endpoint, pid file, metrics, then the worker loop until SIGTERM
    /// or SIGINT (a graceful stop). `makeHandler` gets the home and the concurrency in force; `cleanup` runs
    /// after the loop ends.
    public func runWorker(
        kind: WorkerKind, defaultConcurrency: Int,
        makeHandler: (StowageHome, Int, Logger) throws -> Parts
    ) async throws {
        process.bootstrapLogging()
        let logger = Logger(label: "stowage.\(kind.rawValue)-worker")
        let home = process.stowageHome
        do {
            let endpoints = try home.schedulerEndpoints(option: scheduler)
            for endpoint in endpoints { try checkEndpoint(endpoint) }
            let capacity = concurrency ?? defaultConcurrency
            writePidFile(process.pidfilePath)
            let metrics = try await process.startMetrics(logger: logger)
            let (handler, cleanup) = try makeHandler(home, capacity, logger)
            do {
                var runtimeOptions = WorkerRuntime.Options(kind: kind, capacity: capacity, endpoints: endpoints)
                runtimeOptions.curve = try CurveClientKeys.resolve(
                    endpoints: endpoints, keyFile: process.curveKey,
                    serverKey: curveServerKey)
                let stop = ShutdownSignal()
                let runtime = try WorkerRuntime(
                    options: runtimeOptions, handler: handler, shutdown: stop,
                    logger: logger)
                let loop = PollLoopService(name: "\(kind.rawValue)-worker", stop: stop) { try runtime.run() }
                let services: [any Service] = (metrics.map { [$0] } ?? []) + [loop]
                try await Lifecycle.run(services, logger: logger)
            } catch {
                await cleanup()
                throw error
            }
            await cleanup()
        } catch {
            logger.critical("\(kind.rawValue) worker cannot run: \(error)")
            throw ExitCode(1)
        }
    }
}
