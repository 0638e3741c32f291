import Foundation
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

/// A duration as operators write it: `90s`, `15m`, `24h`, `30d`, or a bare number of seconds; nil if not one.
public func parseDuration(_ text: String) -> Double? {
    let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
    if let unit = text.last, let factor = units[unit], let n = Double(text.dropLast()), n >= 0, n.isFinite {
        return n * factor
    }
    return Double(text).flatMap { $0 >= 0 && $0.isFinite ? $0 : nil }
}
