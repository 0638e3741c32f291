import ArgumentParser
import Foundation
import Logging
import StowageProtocol

/// The options every worker executable takes.
public struct WorkerOptions: ParsableArguments {
    @Option(help: "Stowage home. Default: $STOWAGE_HOME or ~/.stowage.")
    public var home: String?
    @Option(help: "Scheduler endpoint, e.g. tcp://host:7700. Default: $STOWAGE_SCHEDULER or the ipc socket in $STOWAGE_HOME/run.")
    public var scheduler: String?
    @Option(name: .customLong("curve-key"), help: "This worker's CURVE key file (from `stowctl keys generate`); required for a tcp:// scheduler.")
    public var curveKey: String?
    @Option(name: .customLong("curve-server-key"), help: "The scheduler's CURVE public key, or its .pub file; required for a tcp:// scheduler.")
    public var curveServerKey: String?
    @Option(help: "Tasks this worker runs at once.")
    public var concurrency: Int?
    @Option(help: "Serve Prometheus metrics at http://HOST:PORT/metrics: PORT or HOST:PORT (host default 127.0.0.1). Default: off.")
    public var metrics: String?
    @Option(name: .customLong("log-format"), help: "text (default) or json (one JSON object per line).")
    public var logFormat: String?
    @Option(help: "Write this process's pid to FILE.")
    public var pidfile: String?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error, critical.")
    public var logLevel: String?

    public init() {}

    /// Wires a worker process: logging, home, endpoint, pid file, then the worker loop until SIGTERM.
    /// `makeHandler` gets the home and the concurrency in force; `cleanup` runs after the loop ends.
    public func runWorker(kind: WorkerKind, defaultConcurrency: Int,
                          makeHandler: (StowageHome, Int, Logger) throws -> (TaskHandler, () -> Void)) throws {
        LogSetup.bootstrap(level: logLevel, format: logFormat)
        let logger = Logger(label: "stowage.\(kind.rawValue)-worker")
        let home = StowageHome(option: home)
        let endpoint = home.schedulerEndpoint(option: scheduler)
        do {
            try checkEndpoint(endpoint)
            let capacity = intOption(concurrency, "concurrency", default: defaultConcurrency)
            guard (1...1_000).contains(capacity) else { throw RuntimeError("--concurrency must be between 1 and 1000") }
            writePidFile(pidfile ?? environmentOption("pidfile"))
            try MetricsEndpoint.start(address: metrics, logger: logger)
            let (handler, cleanup) = try makeHandler(home, capacity, logger)
            defer { cleanup() }
            var runtimeOptions = WorkerRuntime.Options(kind: kind, capacity: capacity, endpoint: endpoint)
            runtimeOptions.curve = try CurveClientKeys.resolve(endpoint: endpoint, keyFile: curveKey, serverKey: curveServerKey)
            let runtime = try WorkerRuntime(options: runtimeOptions,
                                            handler: handler, shutdown: ShutdownSignal(), logger: logger)
            try runtime.run()
        } catch {
            logger.critical("\(kind.rawValue) worker cannot run: \(error)")
            throw ExitCode(1)
        }
    }
}
