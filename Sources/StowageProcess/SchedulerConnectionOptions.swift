import ArgumentParser
import StowageRuntime

/// How a client (`stowctl`, the gateway) reaches the scheduler: `--home` / `STOWAGE_HOME`, `--scheduler` /
/// `STOWAGE_SCHEDULER` (default: the ipc socket in the home), and CURVE keys for a tcp:// scheduler. One option
/// group, so every client spells and reads these options the same way.
public struct SchedulerConnectionOptions: ParsableArguments {
    @Option(help: "Stowage home. Default: $STOWAGE_HOME or ~/.stowage.")
    public var home: String?
    @Option(
        help: """
            Scheduler endpoint (e.g. tcp://host:7700). Default: $STOWAGE_SCHEDULER or the ipc socket in the home.
            """)
    public var scheduler: String?
    @Option(
        name: .customLong("curve-key"),
        help: "Your CURVE key file (from `stowctl keys generate`); required for a tcp:// scheduler.")
    public var curveKey: String?
    @Option(
        name: .customLong("curve-server-key"),
        help: "The scheduler's CURVE public key, or its .pub file; required for a tcp:// scheduler.")
    public var curveServerKey: String?

    public init() {}

    /// The Stowage home these options name.
    public var stowageHome: StowageHome { StowageHome(option: home ?? environmentOption("home")) }

    /// A new client of the scheduler, connected as these options say.
    public func client() throws -> sending SchedulerClient { try connector()() }

    /// Makes a new client of the scheduler each time it is called (the gateway's event relay makes its own).
    public func connector() -> @Sendable () throws -> sending SchedulerClient {
        let endpoint = stowageHome.schedulerEndpoint(option: scheduler)
        let keyFile = curveKey, serverKey = curveServerKey
        return {
            let curve = try CurveClientKeys.resolve(endpoint: endpoint, keyFile: keyFile, serverKey: serverKey)
            return try SchedulerClient(endpoint: endpoint, curve: curve)
        }
    }
}
