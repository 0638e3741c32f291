import StowageProtocol

/// Hosts that could not be reached, and when to probe each again: the scheduler's memory of "waiting for
/// the network". Pure value, driven with monotonic seconds.
///
/// A host is added when a title's retry budget was spent on connectivity failures; probes back off
/// 2 s, 4 s, 8 s … capped at ``maxInterval`` (60 s), for as long as the outage lasts. When a probe gets
/// an answer the host is removed and everything waiting on it resumes.
public struct HostWatch: Sendable, Equatable {
    /// A host being watched.
    public struct Entry: Sendable, Equatable {
        /// When the host was first found unreachable (monotonic).
        public var since: Double
        /// When it is probed next (monotonic).
        public var nextProbe: Double
        /// Failed probes so far.
        public var failures: Int
        /// A probe is running.
        public var probing: Bool
    }

    /// Seconds before the first probe of a host.
    public static let firstInterval = 2.0
    /// The longest wait between probes, seconds.
    public static let maxInterval = 60.0
    /// The hosts watched, by `host:port`.
    public private(set) var hosts: [String: Entry] = [:]

    /// No host watched.
    public init() {}

    /// The host could not be reached (again): watch it, first probe after ``firstInterval``. A host already
    /// watched keeps its schedule. `since` lets a restarted scheduler carry on an outage it learned from the store.
    public mutating func unreachable(_ host: String, now: Double, since: Double? = nil) {
        guard hosts[host] == nil else { return }
        hosts[host] = Entry(since: since ?? now, nextProbe: now + Self.firstInterval, failures: 0, probing: false)
    }

    /// Hosts due for a probe; they are marked as probing until ``probed(_:reachable:now:)``.
    public mutating func due(now: Double) -> [String] {
        let out = hosts.filter { !$0.value.probing && $0.value.nextProbe <= now }.map(\.key).sorted()
        for host in out { hosts[host]?.probing = true }
        return out
    }

    /// A probe ended. Returns true when the host answered (it is no longer watched).
    @discardableResult
    public mutating func probed(_ host: String, reachable: Bool, now: Double) -> Bool {
        guard var entry = hosts[host] else { return reachable }
        if reachable {
            hosts[host] = nil
            return true
        }
        entry.failures += 1
        entry.probing = false
        entry.nextProbe = now + Self.interval(afterFailures: entry.failures)
        hosts[host] = entry
        return false
    }

    /// Stops watching a host (nothing waits for it any more).
    public mutating func forget(_ host: String) { hosts[host] = nil }

    /// The probes' backoff: ``firstInterval`` doubling up to ``maxInterval``, no jitter.
    public static let probeBackoff = Backoff(base: firstInterval, cap: maxInterval)

    /// Seconds between probes after `failures` failed ones: 2, 4, 8, 16, 32, 60, 60 …
    public static func interval(afterFailures failures: Int) -> Double {
        probeBackoff.delay(afterFailures: failures)
    }
}
