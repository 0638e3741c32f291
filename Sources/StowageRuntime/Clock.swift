import Foundation

/// Wall-clock seconds since 1970, the unit the store and leases use.
public func now() -> Double { Date().timeIntervalSince1970 }

/// Monotonic seconds, for timeouts that must not jump with the wall clock.
public func monotonic() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// ISO 8601 text of a timestamp (UTC), as `status --json` shows times.
public func iso8601(_ seconds: Double?) -> String? {
    guard let seconds else { return nil }
    return Date(timeIntervalSince1970: seconds).formatted(.iso8601)
}
