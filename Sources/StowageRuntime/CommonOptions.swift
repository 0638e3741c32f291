import Foundation

/// `STOWAGE_<OPTION>` from the environment, used when the flag is not given (flags win).
public func environmentOption(_ name: String) -> String? {
    let key = "STOWAGE_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    guard let value = ProcessInfo.processInfo.environment[key], !value.isEmpty else { return nil }
    return value
}

/// An integer option: the flag, else `STOWAGE_<NAME>`, else the default.
public func intOption(_ flag: Int?, _ name: String, default value: Int) -> Int {
    flag ?? environmentOption(name).flatMap { Int($0) } ?? value
}

/// Writes this process's pid to `run/<name>.pid` when `STOWAGE_PIDFILE` or `--pidfile` asks for it.
public func writePidFile(_ path: String?) {
    guard let path else { return }
    try? "\(getpid())\n".write(toFile: path, atomically: true, encoding: .utf8)
}
