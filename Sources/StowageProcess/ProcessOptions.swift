import ArgumentParser
import Foundation
import Logging
import StowageRuntime

/// The options every long-running Stowage process takes (the scheduler and the workers): its home, metrics
/// endpoint, logging, pid file and CURVE key. Each may also come from `STOWAGE_<OPTION>` (flags win).
public struct ProcessOptions: ParsableArguments {
    /// `--home`: the Stowage home.
    @Option(help: "Stowage home (store, titles/, run/, logs/). Default: $STOWAGE_HOME or ~/.stowage.")
    public var home: String?
    /// `--metrics [HOST:]PORT`: where to serve `/metrics`.
    @Option(
        help: """
            Serve Prometheus metrics at http://HOST:PORT/metrics: PORT or HOST:PORT (host default 127.0.0.1). \
            Default: off.
            """)
    public var metrics: String?
    /// `--log-format`.
    @Option(name: .customLong("log-format"), help: "Log lines as text (default) or json (one JSON object per line).")
    public var logFormat: LogFormat?
    /// `--log-level`.
    @Option(name: .customLong("log-level"), help: "The least severe level logged (default info).")
    public var logLevel: LogLevel?
    /// `--pidfile FILE`.
    @Option(help: ArgumentHelp("Write this process's pid to FILE.", valueName: "FILE"))
    public var pidfile: String?
    /// `--curve-key FILE`: this process's CURVE key pair.
    @Option(
        name: .customLong("curve-key"),
        help: ArgumentHelp(
            """
            This process's CURVE key file (make one with `stowctl keys generate NAME`), for tcp:// endpoints. \
            The scheduler's default: $STOWAGE_HOME/keys/scheduler.key.
            """, valueName: "FILE"))
    public var curveKey: String?

    /// Options as not given (ArgumentParser fills them in).
    public init() {}

    /// The home in force: `--home`, else `STOWAGE_HOME`, else `~/.stowage`.
    public var stowageHome: StowageHome { StowageHome(option: home) }

    /// Logging to stderr at `--log-level` in `--log-format` (or their `STOWAGE_` variables).
    public func bootstrapLogging() { LogSetup.bootstrap(level: logLevel, format: logFormat) }

    /// The pid file asked for with `--pidfile` or `STOWAGE_PIDFILE`, if any.
    public var pidfilePath: String? { pidfile ?? environmentOption("pidfile") }

    /// Bootstraps metrics and binds `--metrics` (or `STOWAGE_METRICS`) if given.
    public func startMetrics(logger: Logger) async throws -> ChannelService? {
        try await MetricsEndpoint.start(address: metrics, logger: logger)
    }
}

/// `--log-format`: how log lines are written to stderr.
public enum LogFormat: String, CaseIterable, Sendable, ExpressibleByArgument {
    /// swift-log's stream format, for people.
    case text
    /// One JSON object per line, for log shippers.
    case json

    /// Case-insensitive, as `STOWAGE_LOG_FORMAT` always was.
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

/// `--log-level`: the least severe level logged, as swift-log names them.
public enum LogLevel: String, CaseIterable, Sendable, ExpressibleByArgument {
    case trace, debug, info, notice, warning, error, critical

    /// Case-insensitive, as `STOWAGE_LOG_LEVEL` always was.
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }

    /// The swift-log level.
    public var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }
}
