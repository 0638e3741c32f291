/// Connectivity failures in a row at each origin host (`host:port`), any file, no answer in between: an
/// outage is noticed in about a minute however many files are queued. Pure value, monotonic seconds.
public struct HostFailures: Sendable, Equatable {
    struct Row: Sendable, Equatable {
        var count: Int
        var since: Double
    }

    /// How long a host must keep failing before its failures in a row count (a blip of a second suspends
    /// nothing).
    public static let outageSeconds = 20.0

    private var rows: [String: Row] = [:]

    /// No failures.
    public init() {}

    /// Whether no host is failing (callers skip working out a host then).
    public var isEmpty: Bool { rows.isEmpty }

    /// A connectivity failure at `host`. Returns the failures in a row to count against the retry budget:
    /// 0 until the host has been failing for ``outageSeconds``.
    public mutating func failed(_ host: String, now: Double) -> Int {
        var row = rows[host] ?? Row(count: 0, since: now)
        row.count += 1
        rows[host] = row
        return now - row.since >= Self.outageSeconds ? row.count : 0
    }

    /// The host answered (a file, an HTTP status, a probe): it is reachable; the count starts over.
    public mutating func answered(_ host: String) {
        rows[host] = nil
    }
}
