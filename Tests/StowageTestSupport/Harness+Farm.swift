import Foundation

/// One scheduler of a ``Farm``.
public struct FarmScheduler: Sendable {
    /// Its process name in the harness (`scheduler-0`, `scheduler-1`, …): ``Harness/log(_:)``, `pid`, `kill9`.
    public let name: String
    /// Its own home (the first one is the harness's, so `stowctl` and workers reach it by default).
    public let home: URL
    /// Its endpoint: the ipc socket of its home, or its tcp endpoint on 127.0.0.1 (a farm over CURVE).
    public let endpoint: String
    /// Its arguments and environment, for a start again after a `kill -9`.
    public let arguments: [String]
    public let environment: [String: String]
}

/// Several schedulers sharing one store (``Harness/startSchedulerFarm(count:leaderLease:store:curve:extra:)``).
public struct Farm: Sendable {
    public let schedulers: [FarmScheduler]
    /// What a client (`stowctl`, a worker, the gateway) needs to reach every scheduler: `--scheduler` with every
    /// endpoint and, over CURVE, its keys (an operator's).
    public let clientArguments: [String]

    /// `--scheduler`'s value (and `STOWAGE_SCHEDULER`'s): every endpoint, comma-separated.
    public var schedulerList: String { schedulers.map(\.endpoint).joined(separator: ",") }

    public subscript(index: Int) -> FarmScheduler { schedulers[index] }
}

extension Harness {
    /// Starts `count` schedulers sharing one store, each with a home of its own, all with one master key
    /// (`STOWAGE_MASTER_KEY`) and the titles folder of the harness's home (each other home's `titles` a symlink to
    /// it), on `store` (a `--store` URL, e.g. PostgreSQL's) or, when nil, the SQLite file of the harness's home
    /// (each other home's `stowage.sqlite` a symlink: SQLite follows it, so the WAL and its locks are shared).
    /// With `curve`, each binds a tcp endpoint of 127.0.0.1 with the harness home's CURVE key pair and allow-list
    /// (a farm's schedulers share one pair). `extra(i)` adds arguments for scheduler `i`; `masterKey` is the farm's
    /// (base64; nil: a new random one; a box moved into the farm gives its own). Returns once each has bound its
    /// endpoints (standby or leader); the first one started claims the lead first.
    public func startSchedulerFarm(
        count: Int, leaderLease: String = "2s", store: String? = nil, curve: Bool = false, masterKey: String? = nil,
        extra: (Int) -> [String] = { _ in [] }
    ) throws -> Farm {
        let key = masterKey ?? Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let fm = FileManager.default
        let titles = home.appendingPathComponent("titles")
        try fm.createDirectory(at: titles, withIntermediateDirectories: true)
        let homes = (0..<count).map { $0 == 0 ? home : root.appendingPathComponent("farm-\($0)") }
        let endpoints =
            try curve
            ? homes.map { _ in "tcp://127.0.0.1:\(try Harness.freePort())" }
            : homes.map { "ipc://" + $0.appendingPathComponent("run/scheduler.ipc").path }
        let list = endpoints.joined(separator: ",")
        // Over CURVE: the harness home's key pair (made here) and an operator's key on its allow-list.
        let client = try curve ? curveClient("farm-client", role: "operator", endpoint: list) : ["--scheduler", list]
        var schedulers: [FarmScheduler] = []
        for (i, own) in homes.enumerated() {
            if i > 0 {
                try fm.createDirectory(at: own, withIntermediateDirectories: true)
                try fm.createSymbolicLink(at: own.appendingPathComponent("titles"), withDestinationURL: titles)
                if store == nil {
                    try fm.createSymbolicLink(
                        at: own.appendingPathComponent("stowage.sqlite"),
                        withDestinationURL: home.appendingPathComponent("stowage.sqlite"))
                }
                if curve {
                    try fm.copyItem(at: home.appendingPathComponent("keys"), to: own.appendingPathComponent("keys"))
                }
            }
            let scheduler = FarmScheduler(
                name: "scheduler-\(i)", home: own, endpoint: endpoints[i],
                arguments: ["--leader-lease", leaderLease] + (store.map { ["--store", $0] } ?? [])
                    + (curve ? ["--bind", endpoints[i]] : []) + extra(i),
                environment: ["STOWAGE_HOME": own.path, "STOWAGE_MASTER_KEY": key])
            try start(scheduler)
            schedulers.append(scheduler)
        }
        return Farm(schedulers: schedulers, clientArguments: client)
    }

    /// Starts (or starts again) one scheduler of a farm and waits until its endpoints are bound.
    public func start(_ scheduler: FarmScheduler) throws {
        // `spawn` starts the process's log afresh.
        let process = try spawn(
            scheduler.name, "stowage-scheduler", scheduler.arguments, environment: scheduler.environment)
        try waitUntil(timeout: 30, "\(scheduler.name) to bind its endpoints") {
            !process.isRunning || log(scheduler.name).contains("standby: claiming the lead")
        }
        guard process.isRunning else {
            throw HarnessError("\(scheduler.name) exited at start: \(log(scheduler.name).suffix(2000))")
        }
    }

    /// The terms `scheduler` began leading, from its log (`leading` lines), newest last.
    public func termsLed(_ scheduler: FarmScheduler) -> [Int64] {
        log(scheduler.name).split(separator: "\n").filter { $0.hasSuffix(" leading") || $0.contains(" leading ") }
            .compactMap { line in
                guard let range = line.range(of: "term=") else { return nil }
                return Int64(line[range.upperBound...].prefix { $0.isNumber })
            }
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
