import ArgumentParser
import Foundation
import Logging
import StowageRuntime

/// The options every long-running Stowage process takes (the scheduler and the workers): its home, metrics
/// endpoint, logging, pid file and CURVE key. Each may also come from `STOWAGE_<OPTION>` (flags win), resolved and
/// checked in ``validate()`` by ``EnvironmentRule``.
public struct ProcessOptions: ParsableArguments {
    /// `--home`: the Stowage home.
    @Option(
        help: ArgumentHelp(
            "Stowage home (store, titles/, run/, logs/). Default: ~/.stowage. [env: STOWAGE_HOME]", valueName: "dir"))
    public var home: String?
    /// `--metrics [HOST:]PORT`: where to serve `/metrics`.
    @Option(
        help: ArgumentHelp(
            """
            Serve Prometheus metrics at http://HOST:PORT/metrics: PORT or HOST:PORT (host default 127.0.0.1). \
            Default: off. [env: STOWAGE_METRICS]
            """, valueName: "[host:]port"))
    public var metrics: String?
    /// `--log-format`.
    @Option(
        name: .customLong("log-format"),
        help: ArgumentHelp(
            "Log lines as text (default) or json (one JSON object per line). [env: STOWAGE_LOG_FORMAT]",
            valueName: "format"))
    public var logFormat: LogFormat?
    /// `--log-level`.
    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp("The least severe level logged (default info). [env: STOWAGE_LOG_LEVEL]", valueName: "level")
    )
    public var logLevel: LogLevel?
    /// `--pidfile FILE`.
    @Option(help: ArgumentHelp("Write this process's pid to FILE. [env: STOWAGE_PIDFILE]", valueName: "file"))
    public var pidfile: String?
    /// `--curve-key FILE`: this process's CURVE key pair.
    @Option(
        name: .customLong("curve-key"),
        help: ArgumentHelp(
            """
            This process's CURVE key file (make one with `stowctl keys generate NAME`), for tcp:// endpoints. \
            The scheduler's default: $STOWAGE_HOME/keys/scheduler.key. [env: STOWAGE_CURVE_KEY]
            """, valueName: "file"))
    public var curveKey: String?

    /// Options as not given (ArgumentParser fills them in).
    public init() {}

    /// Each option from its flag, else its `STOWAGE_` variable; a bad value of either stops the start (exit 2).
    public mutating func validate() throws {
        home = try EnvironmentRule.resolve(home, "home", check: OptionChecks.home)
        metrics = try EnvironmentRule.resolve(metrics, "metrics", check: OptionChecks.listenAddress)
        logFormat = try EnvironmentRule.resolve(logFormat, "log-format")
        logLevel = try EnvironmentRule.resolve(logLevel, "log-level")
        pidfile = try EnvironmentRule.resolve(pidfile, "pidfile", check: OptionChecks.writableFile)
        curveKey = try EnvironmentRule.resolve(curveKey, "curve-key", check: OptionChecks.readableFile)
    }

    /// The home in force: `--home`, else `STOWAGE_HOME`, else `~/.stowage`.
    public var stowageHome: StowageHome { StowageHome(option: home) }

    /// Logging to stderr at `--log-level` in `--log-format` (or their `STOWAGE_` variables).
    public func bootstrapLogging() { LogSetup.bootstrap(level: logLevel, format: logFormat) }

    /// The pid file asked for with `--pidfile` or `STOWAGE_PIDFILE`, if any.
    public var pidfilePath: String? { pidfile }

    /// Bootstraps metrics and binds `--metrics` (or `STOWAGE_METRICS`) if given.
    public func startMetrics(logger: Logger) async throws -> ChannelService? {
        try await MetricsEndpoint.start(address: metrics, logger: logger)
    }
}

/// `--log-format`: how log lines are written to stderr.
public enum LogFormat: String, CaseIterable, Sendable {
    /// swift-log's stream format, for people.
    case text
    /// One JSON object per line, for log shippers.
    case json

}

/// `--log-level`: the least severe level logged, as swift-log names them.
public enum LogLevel: String, CaseIterable, Sendable {
    case trace, debug, info, notice, warning, error, critical

    /// The swift-log level.
    public var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }
}
