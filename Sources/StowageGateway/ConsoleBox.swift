import StowageProtocol

/// The box as the console shows it (`GET /api/console/box`): the disk and the quota with what the quota would
/// evict next, the catalogue's status, the notifications waiting, the workers and the pipeline's figures. Each
/// part is asked for on its own, so one the scheduler refuses (a `gateway` key may not ask for stats) is shown as
/// its error in `problems` while the others still show.
struct ConsoleBox: Encodable, Sendable {
    var stats: SchedulerStats?
    /// The first titles the quota would evict, first victim first (at most ``evictableShown``).
    var evictable: [ConsoleTitle]?
    var evictableCount: Int?
    var catalog: CatalogReport?
    var notify: NotifyReport?
    var workers: [WorkerInfo]?
    /// Per part (`stats`, `evictable`, `catalog`, `notify`, `workers`): why it could not be read.
    var problems: [String: String]

    static let evictableShown = 5
    /// The parts' names in `problems`.
    static let parts = ["stats", "evictable", "catalog", "notify", "workers"]

    init(
        stats: SchedulerStats? = nil, evictable: [ConsoleTitle]? = nil, evictableCount: Int? = nil,
        catalog: CatalogReport? = nil, notify: NotifyReport? = nil, workers: [WorkerInfo]? = nil,
        problems: [String: String]
    ) {
        self.stats = stats
        self.evictable = evictable
        self.evictableCount = evictableCount
        self.catalog = catalog
        self.notify = notify
        self.workers = workers
        self.problems = problems
    }

    /// Reads every part from `backend`.
    static func read(_ backend: any ConsoleBackend) async -> ConsoleBox {
        var problems: [String: String] = [:]
        func part<T>(_ name: String, _ read: () async throws -> T) async -> T? {
            do { return try await read() } catch let error as GatewayError {
                problems[name] = error.message
            } catch {
                problems[name] = "\(error)"
            }
            return nil
        }
        let stats = await part("stats") { try await backend.stats() }
        let evictable = await part("evictable") { try await backend.evictable() }
        let catalog = await part("catalog") { try await backend.catalogStatus() }
        let notify = await part("notify") { try await backend.notifyStatus() }
        let workers = await part("workers") { try await backend.workers() }
        return ConsoleBox(
            stats: stats, evictable: evictable.map { $0.prefix(evictableShown).map(ConsoleTitle.init) },
            evictableCount: evictable?.count, catalog: catalog, notify: notify, workers: workers, problems: problems)
    }
}
