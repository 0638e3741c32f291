import Foundation
import StowageProtocol
import StowageRuntime

/// An integer option: the flag, else `STOWAGE_<NAME>`, else the default.
public func intOption(_ flag: Int?, _ name: String, default value: Int) -> Int {
    flag ?? environmentOption(name).flatMap { Int($0) } ?? value
}

/// Writes this process's pid to `run/<name>.pid` when `STOWAGE_PIDFILE` or `--pidfile` asks for it.
public func writePidFile(_ path: String?) {
    guard let path else { return }
    try? "\(getpid())\n".write(toFile: path, atomically: true, encoding: .utf8)
}

/// A duration as operators write it: `90s`, `15m`, `24h`, `30d`, or a bare number of seconds, up to 100 years; nil
/// if not one.
public func parseDuration(_ text: String) -> Double? {
    let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
    // At most 100 years: a sleep of 1e300 s traps (`Duration.seconds`), and no interval needs more.
    let range = 0...OutsideNumbers.maxSeconds
    if let unit = text.last, let factor = units[unit], let n = Double(text.dropLast()), range.contains(n * factor) {
        return n * factor
    }
    return Double(text).flatMap { range.contains($0) ? $0 : nil }
}

/// A size as operators write it: bytes, or a number with `K`, `M`, `G` or `T` (powers of 1024; `500M`, `2G`,
/// `1.5T`); nil if not one, so the caller can say which option was wrong.
public func parseByteSize(_ text: String) -> Int64? {
    let units: [Character: Double] = ["K": 1_024, "M": 1_048_576, "G": 1_073_741_824, "T": 1_099_511_627_776]
    let trimmed = text.hasSuffix("B") || text.hasSuffix("b") ? String(text.dropLast()) : text
    if let unit = trimmed.last.map({ Character($0.uppercased()) }), let factor = units[unit],
        let n = Double(trimmed.dropLast()), n >= 0, n.isFinite, n * factor < 9e18
    {
        return Int64(n * factor)
    }
    return Int64(trimmed).flatMap { $0 >= 0 ? $0 : nil }  // the callers' ranges (LimitSettings) bound the rest
}
