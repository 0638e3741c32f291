import Foundation
import StowageTestSupport

/// `Deploy/*.sh` run as an operator runs them, for one harness's home, and what they leave behind: pid files and
/// the processes of that home.
enum DeployScript {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs `Deploy/NAME`; `environment` adds variables, or removes them (nil). Returns its status, outputs and how
    /// long it took (monotonic).
    static func run(
        _ h: Harness, _ name: String, _ arguments: [String] = [], environment: [String: String?] = [:]
    ) throws -> (status: Int32, stdout: String, stderr: String, seconds: Double) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        // Foundation's Process learns that its child ended when an inherited socket closes; the daemons the
        // script leaves running would keep it open for ever. Close every descriptor above 2 first.
        let closeInherited = #"for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; "#
        p.arguments =
            ["-c", closeInherited + #"exec bash "$0" "$@""#, repository.appendingPathComponent("Deploy/\(name)").path]
            + arguments
        var env = Harness.cleanEnvironment()
        env["STOWAGE_HOME"] = h.home.path
        env["BIN"] = h.bin.path
        for (key, value) in environment { env[key] = value }
        p.environment = env
        let clock = ContinuousClock()
        let started = clock.now
        let r = try runCapturingStreams(p)
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (r.status, r.stdout, r.stderr, seconds)
    }

    /// The pid in the home's `run/NAME.pid`, if there is one.
    static func pid(_ h: Harness, _ name: String) -> Int32? {
        let text = try? String(contentsOf: h.home.appendingPathComponent("run/\(name).pid"), encoding: .utf8)
        return text.flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Whether `pid` runs (not gone, not a zombie).
    static func alive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(close, offsetBy: 2)]
        return state != "Z" && state != "X"
    }

    /// The live processes whose command line names the harness's home (`--home HOME`, as start.sh starts them).
    static func processesOfHome(_ h: Harness) -> [Int32: String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var found: [Int32: String] = [:]
        for entry in entries {
            guard let pid = Int32(entry), alive(pid),
                let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { continue }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.contains(h.home.path), let first = arguments.first {
                found[pid] = URL(fileURLWithPath: first).lastPathComponent
            }
        }
        return found
    }

    /// Kills every process of the harness's home: whatever a test started, nothing outlives it.
    static func killAll(_ h: Harness) {
        for pid in processesOfHome(h).keys { kill(pid, SIGKILL) }
    }
}

/// A TCP port on 127.0.0.1 held by a listening socket of this test, so that another program cannot bind it.
final class HeldPort {
    let port: Int
    private let fd: Int32

    init() throws {
        (fd, port) = try Harness.loopbackSocket(listening: true)
    }

    deinit { close(fd) }
}
