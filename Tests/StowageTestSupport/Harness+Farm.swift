import Foundation

/// One of several schedulers sharing a store (``Harness/startSchedulerFarm(count:leaderLease:store:extra:)``).
public struct FarmScheduler: Sendable {
    /// Its process name in the harness (`scheduler-0`, `scheduler-1`, …): ``Harness/log(_:)``, `pid`, `kill9`.
    public let name: String
    /// Its own home (the first one is the harness's, so `stowctl` and workers reach it by default).
    public let home: URL
    /// Its arguments, for a start again after a `kill -9`.
    public let arguments: [String]
    public let environment: [String: String]

    /// Its ipc endpoint.
    public var endpoint: String { "ipc://" + home.appendingPathComponent("run/scheduler.ipc").path }
}

extension Harness {
    /// Starts `count` schedulers sharing one store, each with a home of its own, all with one master key
    /// (`STOWAGE_MASTER_KEY`) and the titles folder of the harness's home (each other home's `titles` a symlink to
    /// it), on `store` (a `--store` URL, e.g. PostgreSQL's) or, when nil, the SQLite file of the harness's home
    /// (each other home's `stowage.sqlite` a symlink: SQLite follows it, so the WAL and its locks are shared).
    /// `extra(i)` adds arguments for scheduler `i` (e.g. a `--bind`); `masterKey` is the farm's (base64; nil: a new
    /// random one; a box moved into the farm gives its own). Returns once each has bound its endpoints (standby or
    /// leader); the first one started claims the lead first.
    public func startSchedulerFarm(
        count: Int, leaderLease: String = "2s", store: String? = nil, masterKey: String? = nil,
        extra: (Int) -> [String] = { _ in [] }
    ) throws -> [FarmScheduler] {
        let key = masterKey ?? Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let titles = home.appendingPathComponent("titles")
        try FileManager.default.createDirectory(at: titles, withIntermediateDirectories: true)
        var farm: [FarmScheduler] = []
        for i in 0..<count {
            let own = i == 0 ? home : root.appendingPathComponent("farm-\(i)")
            if i > 0 {
                try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(
                    at: own.appendingPathComponent("titles"), withDestinationURL: titles)
                if store == nil {
                    try FileManager.default.createSymbolicLink(
                        at: own.appendingPathComponent("stowage.sqlite"),
                        withDestinationURL: home.appendingPathComponent("stowage.sqlite"))
                }
            }
            let scheduler = FarmScheduler(
                name: "scheduler-\(i)", home: own,
                arguments: ["--leader-lease", leaderLease] + (store.map { ["--store", $0] } ?? []) + extra(i),
                environment: ["STOWAGE_HOME": own.path, "STOWAGE_MASTER_KEY": key])
            try start(scheduler)
            farm.append(scheduler)
        }
        return farm
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

    /// Every scheduler's endpoint, comma-separated: what `--scheduler` / `STOWAGE_SCHEDULER` take to follow the
    /// leader among them.
    public func schedulerList(_ farm: [FarmScheduler]) -> String { farm.map(\.endpoint).joined(separator: ",") }

    /// The terms each scheduler of `farm` began leading, from their logs (`leading` lines), newest last.
    public func termsLed(_ scheduler: FarmScheduler) -> [Int64] {
        log(scheduler.name).split(separator: "\n").filter { $0.hasSuffix(" leading") || $0.contains(" leading ") }
            .compactMap { line in
                guard let range = line.range(of: "term=") else { return nil }
                return Int64(line[range.upperBound...].prefix { $0.isNumber })
            }
    }
}
