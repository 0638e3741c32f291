import StowageProtocol

/// A unit of work waiting for, or held by, a worker. Identified by what it is about, not by attempt:
/// each hand-out of it is a ``Lease`` with a fresh task id.
public struct WorkItem: Hashable, Sendable, CustomStringConvertible {
    /// What the work is.
    public enum Kind: Hashable, Sendable {
        case resolve
        case license
        case fetch(resource: Int64)
        case verify(resource: Int64)
        /// A recording's reload of the media playlist of one rendition (its position in the plan).
        case reload(rendition: Int)

        /// The kind of worker that runs it.
        public var workerKind: WorkerKind {
            switch self {
            case .resolve, .fetch, .reload: .download
            case .license: .license
            case .verify: .integrity
            }
        }

        /// Segment work needs one of the "titles downloading at once" slots.
        public var needsTitleSlot: Bool {
            switch self {
            case .fetch, .verify: true
            case .resolve, .license, .reload: false
            }
        }

        var lane: Lane {
            switch self {
            case .resolve, .reload: .resolve
            case .license: .license
            case .fetch: .fetch
            case .verify: .verify
            }
        }
    }

    /// Per-title queues, one per kind of work.
    enum Lane: Int, CaseIterable, Sendable { case resolve, license, fetch, verify }

    /// The title it is for.
    public var token: String
    public var kind: Kind
    /// The origin host it talks to (fetch and resolve work), for the per-host connection limit.
    public var host: String?

    /// Work of `kind` for the title `token`, talking to `host` (fetch and resolve work).
    public init(token: String, kind: Kind, host: String? = nil) {
        self.token = token
        self.kind = kind
        self.host = host
    }

    /// `token/kind`, for logs.
    public var description: String { "\(token)/\(kind)" }
}

/// One hand-out of a work item to a worker. Ends with a result, the worker's death, or the deadline.
public struct Lease: Sendable, Equatable {
    public var taskID: String
    public var item: WorkItem
    public var worker: String
    public var issuedAt: Double
    public var deadline: Double
    /// The worker process (`host/pid`): its HTTP connections outlive a reconnect of its socket.
    public var process: String = ""
    /// More fetches of the same title and host carried by this lease, after `item` (a fetch batch: one task,
    /// one connection, fetched one after another, one result for all).
    public var batch: [WorkItem] = []

    /// `item` followed by the batch.
    public var items: [WorkItem] { [item] + batch }
}

/// The scheduler's limits. Live-changeable.
public struct Limits: Sendable, Equatable {
    /// Titles with segment work in progress at once.
    public var titlesAtOnce: Int
    /// Segment fetches (and, separately, verifications) in flight per title.
    public var perTitle: Int
    /// Requests in flight to one origin host, across all workers.
    public var perHost: Int
    /// License requests in flight at once.
    public var licenses: Int
    /// Most fetches one lease carries (fetch batches); a batch takes only a share of what is queued, so the
    /// last files of a title still spread over every connection.
    public var fetchBatch = 64

    /// The defaults, or the given limits.
    public init(titlesAtOnce: Int = 2, perTitle: Int = 6, perHost: Int = 8, licenses: Int = 4) {
        self.titlesAtOnce = titlesAtOnce
        self.perTitle = perTitle
        self.perHost = perHost
        self.licenses = licenses
    }
}

/// How long a lease may run before it is taken back and handed out again.
public struct LeaseTimeouts: Sendable {
    public var resolve: Double = 120
    public var license: Double = 120
    public var fetch: Double = 600
    public var verify: Double = 300
    public var reload: Double = 60

    /// The default timeouts.
    public init() {}

    func timeout(for kind: WorkItem.Kind) -> Double {
        switch kind {
        case .resolve: resolve
        case .license: license
        case .fetch: fetch
        case .verify: verify
        case .reload: reload
        }
    }
}
