/// Waiting for the network: the hosts that could not be reached (probed with backoff until they answer) and
/// the connectivity failures in a row per host that decide when a title stops trying and waits.
public struct NetworkWatch: Sendable, Equatable {
    /// Hosts probed until they answer.
    public var hosts = HostWatch()
    /// Connectivity failures in a row per `host:port` (reset by any answer from it).
    public var failures = HostFailures()

    public init() {}
}
