import ArgumentParser
import StowageRuntime

/// How a client (`stowctl`, the gateway) reaches the scheduler: `--home` / `STOWAGE_HOME`, `--scheduler` /
/// `STOWAGE_SCHEDULER` (default: the ipc socket in the home), and CURVE keys for a tcp:// scheduler. One option
/// group, so every client spells and reads these options the same way.
public struct SchedulerConnectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Stowage home. Default: ~/.stowage. [env: STOWAGE_HOME]", valueName: "dir"))
    public var home: String?
    @Option(
        help: ArgumentHelp(
            """
            Scheduler endpoint (e.g. tcp://host:7700), or several separated by commas (a farm's schedulers: the \
            leader is found). Default: the ipc socket in the home. [env: STOWAGE_SCHEDULER]
            """, valueName: "endpoints"))
    public var scheduler: String?
    @Option(
        name: .customLong("curve-key"),
        help: ArgumentHelp(
            """
            Your CURVE key file (from `stowctl keys generate`); required for a tcp:// scheduler. \
            [env: STOWAGE_CURVE_KEY]
            """, valueName: "file"))
    public var curveKey: String?
    @Option(
        name: .customLong("curve-server-key"),
        help: ArgumentHelp(
            """
            The scheduler's CURVE public key, or its .pub file; required for a tcp:// scheduler. \
            [env: STOWAGE_CURVE_SERVER_KEY]
            """, valueName: "key|file"))
    public var curveServerKey: String?

    public init() {}

    /// Each option from its flag, else its `STOWAGE_` variable; a bad value of either is a usage error (exit 2).
    public mutating func validate() throws {
        home = try EnvironmentRule.resolve(home, "home", check: OptionChecks.home)
        scheduler = try EnvironmentRule.resolve(scheduler, "scheduler", check: OptionChecks.schedulerEndpoints)
        curveKey = try EnvironmentRule.resolve(curveKey, "curve-key", check: OptionChecks.readableFile)
        curveServerKey = try EnvironmentRule.resolve(
            curveServerKey, "curve-server-key", check: OptionChecks.curveServerKey)
    }

    /// The Stowage home these options name.
    public var stowageHome: StowageHome { StowageHome(option: home) }

    /// A new client of the scheduler, connected as these options say.
    public func client() throws -> sending SchedulerClient { try connector()() }

    /// Makes a new client of the scheduler each time it is called (the gateway's event relay makes its own).
    public func connector() -> @Sendable () throws -> sending SchedulerClient {
        let home = stowageHome, option = scheduler
        let keyFile = curveKey, serverKey = curveServerKey
        return {
            let endpoints = try home.schedulerEndpoints(option: option)
            let curve = try CurveClientKeys.resolve(endpoints: endpoints, keyFile: keyFile, serverKey: serverKey)
            return try SchedulerClient(endpoints: endpoints, curve: curve)
        }
    }
}
