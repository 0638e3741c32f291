/// The connections each worker process keeps to each origin host, as far as the scheduler can know them:
/// one per request in flight, and each finished request leaves its connection open (idle, reusable) for
/// the workers' idle timeout. Counting both keeps the connections an origin sees under the per-host limit,
/// not only the requests.
public struct ConnectionModel: Sendable {
    /// How long a finished request's connection is assumed to stay open (the workers close idle
    /// connections sooner: `WireProtocol.connectionIdleMilliseconds`).
    public var idleSeconds: Double
    private struct Use: Sendable {
        var busy = 0
        var idleSince: [Double] = []
    }
    private var use: [String: [String: Use]] = [:]  // host -> worker process -> use

    /// No connections; an idle connection closes after `idleSeconds`.
    public init(idleSeconds: Double) { self.idleSeconds = idleSeconds }

    /// Connections assumed open to `host`, across all worker processes.
    public func open(host: String, now: Double) -> Int {
        (use[host] ?? [:]).values.reduce(0) { $0 + $1.busy + $1.idleSince.filter { now - $0 < idleSeconds }.count }
    }

    /// Whether `process` may start a request to `host`: on an idle connection it holds, or on a new one
    /// while fewer than `limit` are open.
    public func allows(host: String, process: String, limit: Int, now: Double) -> Bool {
        if use[host]?[process]?.idleSince.contains(where: { now - $0 < idleSeconds }) == true { return true }
        return open(host: host, now: now) < limit
    }

    /// `process` starts a request to `host`, on an idle connection of its own if it has one.
    public mutating func start(host: String, process: String, now: Double) {
        var u = use[host]?[process] ?? Use()
        u.idleSince.removeAll { now - $0 >= idleSeconds }
        if !u.idleSince.isEmpty { u.idleSince.removeLast() }
        u.busy += 1
        use[host, default: [:]][process] = u
    }

    /// A request of `process` to `host` ended: its connection idles (open until it times out).
    public mutating func finish(host: String, process: String, now: Double) {
        guard var u = use[host]?[process] else { return }
        u.busy = max(0, u.busy - 1)
        u.idleSince.removeAll { now - $0 >= idleSeconds }
        u.idleSince.append(now)
        use[host]?[process] = u
    }
}
