import Foundation

/// Several schedulers of one farm, for the takeover tests (issue #45): each `scheduler-N` runs in its own home
/// (`farm-N/`, so its ipc socket and pid file are its own) bound to its own tcp endpoint on 127.0.0.1, with the
/// harness home's CURVE key pair and allow-list (a farm's schedulers share one key pair), `master.key` and
/// `titles/` (as shared storage would hold them), and `extra` arguments (the store they share: `--store URL`).
public struct Farm: Sendable {
    /// The schedulers' process names, `scheduler-1` …, in the order of ``endpoints``.
    public let names: [String]
    /// Each scheduler's tcp endpoint.
    public let endpoints: [String]
    /// The arguments of a client (`stowctl`, a worker, the gateway) that may reach every scheduler: `--scheduler`
    /// with every endpoint, comma-separated, and its CURVE keys.
    public let clientArguments: [String]

    /// `--scheduler`'s value: every endpoint.
    public var schedulerList: String { endpoints.joined(separator: ",") }
}

extension Harness {
    /// Starts `count` schedulers as ``Farm`` says, and returns without waiting for an answer (a standby answers
    /// every request with `standby`); `client` names the operator key made for ``Farm/clientArguments``.
    public func startFarm(schedulers count: Int, extra: [String] = [], client: String = "farm-client") throws -> Farm {
        let ports = try (0..<count).map { _ in try Harness.freePort() }
        let endpoints = ports.map { "tcp://127.0.0.1:\($0)" }
        let arguments = try curveClient(client, role: "operator", endpoint: endpoints.joined(separator: ","))
        // The master key: the harness home's, made by a scheduler's first start there.
        let masterKey = home.appendingPathComponent("master.key")
        if !FileManager.default.fileExists(atPath: masterKey.path) {
            try startScheduler()
            _ = terminate("scheduler")
        }
        let fm = FileManager.default
        var names: [String] = []
        for (index, endpoint) in endpoints.enumerated() {
            let name = "scheduler-\(index + 1)"
            let farmHome = root.appendingPathComponent("farm-\(index + 1)")
            try fm.createDirectory(at: farmHome, withIntermediateDirectories: true)
            try fm.copyItem(at: home.appendingPathComponent("keys"), to: farmHome.appendingPathComponent("keys"))
            try fm.createDirectory(at: home.appendingPathComponent("titles"), withIntermediateDirectories: true)
            try fm.createSymbolicLink(
                at: farmHome.appendingPathComponent("titles"), withDestinationURL: home.appendingPathComponent("titles")
            )
            try fm.copyItem(at: masterKey, to: farmHome.appendingPathComponent("master.key"))
            try spawn(
                name, "stowage-scheduler", ["--home", farmHome.path, "--bind", endpoint] + extra,
                environment: ["STOWAGE_HOME": farmHome.path])
            names.append(name)
        }
        return Farm(names: names, endpoints: endpoints, clientArguments: arguments)
    }

    /// Freezes a process (`SIGSTOP`): it keeps its sockets and answers nothing until ``thaw(_:)``.
    public func freeze(_ name: String) {
        if let pid = pid(name) { kill(pid, SIGSTOP) }
    }

    /// Lets a frozen process run again (`SIGCONT`).
    public func thaw(_ name: String) {
        if let pid = pid(name) { kill(pid, SIGCONT) }
    }
}
