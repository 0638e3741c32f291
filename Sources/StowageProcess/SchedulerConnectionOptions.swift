import ArgumentParser
import StowageRuntime

/// How to reach the scheduler, as `stowctl` does: `--home` / `STOWAGE_HOME`, `--scheduler` /
/// `STOWAGE_SCHEDULER` (default: the ipc socket in the home), and CURVE keys for a tcp:// scheduler.
public struct SchedulerConnectionOptions: ParsableArguments {
    @Option(help: "Stowage home (its titles/ are served). Default: $STOWAGE_HOME or ~/.stowage.")
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

    /// Makes a new client of the scheduler each time it is called.
    public func connector() -> @Sendable () throws -> SchedulerClient {
        let endpoint = stowageHome.schedulerEndpoint(option: scheduler)
        let keyFile = curveKey, serverKey = curveServerKey
        return {
            let curve = try CurveClientKeys.resolve(endpoint: endpoint, keyFile: keyFile, serverKey: serverKey)
            return try SchedulerClient(endpoint: endpoint, curve: curve)
        }
    }
}
