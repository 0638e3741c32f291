import Foundation

/// Writes this process's pid to `run/<name>.pid` when `STOWAGE_PIDFILE` or `--pidfile` asks for it (its directory
/// was checked at start, so a failure here is rare: it is logged by the caller's absence of a file, as before).
public func writePidFile(_ path: String?) {
    guard let path else { return }
    try? "\(getpid())\n".write(toFile: path, atomically: true, encoding: .utf8)
}
