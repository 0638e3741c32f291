/// How fast each title's files arrive, and so how many go out in one fetch lease: fast small files many at
/// once, slow or big ones one per lease, so a worker that dies (or a pause) throws away little finished work.
public struct FetchPacing: Sendable, TitleScoped {
    /// A batch holds about this much fetch time at most (seconds).
    public static let batchSeconds = 0.25
    /// Seconds per file of each title's recent fetches (a moving average).
    public private(set) var pace: [String: Double] = [:]
    /// The batch size each title's file sizes allow (about 8 MiB a lease), when its estimate is known.
    public private(set) var bySize: [String: Int] = [:]
    /// Titles whose plan this process saved into a folder that did not exist, with the resources leased
    /// since: a resource not in its title's set was never fetched, so no partial file of it can exist.
    private var firstLeases: [String: Set<Int64>] = [:]
    /// The resources each fetch batch lease was sent with, in order (its results are read by them), by task.
    private var sentBatches: [String: [Int64]] = [:]

    public init() {}

    /// A lease of `files` files issued at `issuedAt` came back at `now`.
    public mutating func fetched(_ token: String, files: Int, issuedAt: Double, now: Double) {
        let perFile = max(0.001, (now - issuedAt) / Double(max(1, files)))
        pace[token] = pace[token].map { 0.7 * $0 + 0.3 * perFile } ?? perFile
    }

    /// The title's files: `estimate` bytes over `files` files (nil: sizes unknown, the pace alone decides).
    public mutating func sized(_ token: String, estimate: Int64?, files: Int, limit: Int) {
        guard let estimate, estimate > 0, files > 0 else {
            bySize[token] = nil
            return
        }
        let perFile = max(1, estimate / Int64(files))
        bySize[token] = Int(min(Int64(limit), max(1, (8 << 20) / perFile)))
    }

    /// The batch size of a title under the `limit` in force: by size and by pace; one until the pace is known.
    public func batchSize(_ token: String, limit: Int) -> Int {
        let byPace = pace[token].map { Int(Self.batchSeconds / $0) } ?? 1
        return min(bySize[token] ?? limit, max(1, byPace))
    }

    /// The plan of `token` was saved into a new folder: its resources start fresh.
    public mutating func startFresh(_ token: String) { firstLeases[token] = [] }

    /// Whether resource `id` is leased for the first time in a folder this process made (nil: unknown).
    public mutating func isFresh(_ token: String, resource id: Int64) -> Bool? {
        firstLeases[token]?.insert(id).inserted
    }

    /// Remembers the resources a batch task went out with; `live` prunes a table grown past its bound.
    public mutating func sent(_ ids: [Int64], task: String, live: (String) -> Bool) {
        if sentBatches.count > 100_000 { sentBatches = sentBatches.filter { live($0.key) } }
        sentBatches[task] = ids
    }

    /// The resources a batch task went out with (forgotten now).
    public mutating func takeBatch(_ task: String) -> [Int64]? { sentBatches.removeValue(forKey: task) }

    public mutating func forget(_ token: String) {
        pace[token] = nil
        bySize[token] = nil
        firstLeases[token] = nil
    }
}
