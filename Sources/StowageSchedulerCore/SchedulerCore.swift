import DequeModule
import StowageProtocol

/// The scheduler's decisions, without sockets, disk or clocks: who is alive, what is leased to whom,
/// what goes out next under the limits. The service feeds it events and carries out what it returns.
public struct SchedulerCore: Sendable {
    /// A registered worker.
    public struct Worker: Sendable, Equatable {
        public var id: String
        public var info: Register
        public var lastSeen: Double
        public var leases: Set<String> = []
        var free: Int { max(0, info.capacity - leases.count) }
    }

    /// A title's queued work: one first-in first-out lane per kind of work, and its leases out per lane.
    struct TitleQueue: Sendable {
        var priority: Int
        var requestedAt: Double
        var lanes: [Deque<WorkItem>] = Array(repeating: [], count: WorkItem.Lane.allCases.count)
        var inFlight: [Int] = Array(repeating: 0, count: WorkItem.Lane.allCases.count)
        /// Most fetches a lease of this title carries (nil: `limits.fetchBatch`).
        var fetchBatch: Int?

        var queuedSegmentWork: Bool { queued(.fetch) > 0 || queued(.verify) > 0 }
        func queued(_ lane: WorkItem.Lane) -> Int { lanes[lane.rawValue].count }
    }

    /// The limits in force (live-changeable).
    public var limits: Limits

    /// Hosts of peer boxes' gateways titles fill from (`submit --from-peer`, catalogue `sources`): each gets at
    /// most ``peerShare(capacity:)`` of a worker's tasks at once.
    public var peerHosts: Set<String> = []

    /// A peer box's share of one worker's task slots: half (at least one). A peer that drips its answers holds
    /// these until each is cut for its pace, never the slots the worker's other hosts need.
    public static func peerShare(capacity: Int) -> Int { max(1, capacity / 2) }

    /// Work waiting for a worker, per kind (`resolve`, `license`, `fetch`, `verify`), across titles.
    public var queueDepths: [String: Int] {
        var out: [String: Int] = [:]
        for lane in WorkItem.Lane.allCases {
            out["\(lane)"] = titles.values.reduce(0) { $0 + $1.queued(lane) }
        }
        return out
    }
    /// How long each kind of lease may run.
    public var timeouts = LeaseTimeouts()
    /// Seconds of silence after which a worker is declared dead.
    public var workerTimeout: Double
    /// Registered workers, by id.
    public private(set) var workers: [String: Worker] = [:]
    /// Leases out, by task id.
    public private(set) var leases: [String: Lease] = [:]
    /// Titles holding a "downloading at once" slot.
    public private(set) var admitted: Set<String> = []
    /// Titles whose segment work needs no slot (recordings).
    public private(set) var slotExempt: Set<String> = []
    /// Licensed titles whose segment work waits for a slot (shown as `requested`).
    public private(set) var waitingForSlot: Set<String> = []
    private var titles: [String: TitleQueue] = [:]
    /// Requests in flight per origin host.
    public private(set) var hostInFlight: [String: Int] = [:]
    /// A host that asked us to slow down (429/503): lower concurrency until a time, no new work before
    /// `resumeAt`.
    public struct HostBackoff: Sendable, Equatable {
        public var limit: Int
        public var resumeAt: Double
        public var until: Double
    }
    /// Hosts slowed down, by host.
    public private(set) var hostBackoff: [String: HostBackoff] = [:]
    private var licensesInFlight = 0
    /// Connections open to each host, modelled (requests in flight plus recently idle ones).
    public var connections = ConnectionModel(
        idleSeconds: Double(WireProtocol.connectionIdleMilliseconds) / 1000 + 0.5)
    /// No host-bound work before this time: after a scheduler restart, connections opened under the previous
    /// run are unknown to the model until they have idled out. Not waited for when the store had no unfinished
    /// work at start (``unfinishedAtStart`` false) and every registered worker has run no task yet: a fresh
    /// start of everything, where no such connection can exist.
    public var holdHostWorkUntil = 0.0
    /// Whether the store held unfinished titles or leases when this scheduler started: workers that have not
    /// registered again yet may still hold connections for them.
    public var unfinishedAtStart = true
    /// The latest time the core was told (releases happen between calls that carry a time).
    private var lastNow = 0.0
    private let idPrefix: String
    private var counter: UInt64 = 0

    /// `idPrefix` must differ between scheduler runs so task ids never repeat across restarts.
    public init(
        limits: Limits = Limits(),
        workerTimeout: Double = Double(WireProtocol.heartbeatMilliseconds * WireProtocol.liveness) / 1000,
        idPrefix: String
    ) {
        self.limits = limits
        self.workerTimeout = workerTimeout
        self.idPrefix = idPrefix
    }

    // MARK: workers

    /// A worker registered (again). A re-registration under the same id drops its old leases back to the queue.
    public mutating func register(id: String, info: Register, now: Double) {
        if workers[id] != nil { _ = removeWorker(id) }
        workers[id] = Worker(id: id, info: info, lastSeen: now)
    }

    /// Any message from a worker counts as a heartbeat. Returns false for an unknown worker (it must register).
    public mutating func touch(_ id: String, now: Double) -> Bool {
        guard workers[id] != nil else { return false }
        lastNow = max(lastNow, now)
        workers[id]?.lastSeen = now
        return true
    }

    /// Forgets a worker; its leases are taken back and their items queued again (at the front).
    @discardableResult
    public mutating func removeWorker(_ id: String) -> [WorkItem] {
        guard let worker = workers.removeValue(forKey: id) else { return [] }
        return worker.leases.sorted().flatMap { revoke($0) }
    }

    /// Declares silent workers dead and takes back leases past their deadline.
    public mutating func expire(now: Double) -> (dead: [String], requeued: [WorkItem]) {
        let expiry = expireReporting(now: now)
        return (expiry.dead, expiry.requeued)
    }

    /// What ``expireReporting(now:)`` did: the workers declared dead, every item queued again, and of those the
    /// items that were leased to a worker that died (``CrashSuspects`` counts them).
    public struct Expiry: Sendable {
        public var dead: [String] = []
        public var requeued: [WorkItem] = []
        public var lostWithWorkers: [WorkItem] = []
    }

    /// ``expire(now:)``, telling apart the items whose worker died from those whose lease ran out.
    public mutating func expireReporting(now: Double) -> Expiry {
        lastNow = max(lastNow, now)
        var expiry = Expiry()
        expiry.dead = workers.values.filter { now - $0.lastSeen > workerTimeout }.map(\.id).sorted()
        for id in expiry.dead { expiry.lostWithWorkers += removeWorker(id) }
        expiry.requeued = expiry.lostWithWorkers
        for lease in leases.values.sorted(by: { $0.taskID < $1.taskID }) where lease.deadline < now {
            expiry.requeued += revoke(lease.taskID)
        }
        return expiry
    }

    /// Takes a lease back; its items go back to the front of the queue, in their order.
    private mutating func revoke(_ taskID: String) -> [WorkItem] {
        guard let lease = leases.removeValue(forKey: taskID) else { return [] }
        workers[lease.worker]?.leases.remove(taskID)
        titles[lease.item.token]?.inFlight[lease.item.kind.lane.rawValue] -= 1
        released(lease)
        if titles[lease.item.token] != nil {
            for item in lease.items.reversed() { enqueue(item, front: true) }
        }
        return lease.items
    }

    // MARK: titles and work

    /// Declares a title (or updates its priority). Needed before its work is queued.
    public mutating func addTitle(_ token: String, priority: Int, requestedAt: Double) {
        if titles[token] == nil {
            titles[token] = TitleQueue(priority: priority, requestedAt: requestedAt)
        } else {
            titles[token]?.priority = priority
        }
    }

    /// Caps the fetch batches of a title, e.g. by the size of its files (big files: small batches, so a worker
    /// that dies loses little finished work). 1 = no batches.
    public mutating func setFetchBatch(_ token: String, _ size: Int) {
        titles[token]?.fetchBatch = max(1, size)
    }

    /// Queues work for a title declared with ``addTitle(_:priority:requestedAt:)``.
    public mutating func enqueue(_ item: WorkItem, front: Bool = false) {
        let lane = item.kind.lane.rawValue
        // Mutated in place through the dictionary (a local copy would copy the whole lane on every append).
        if front {
            titles[item.token]?.lanes[lane].prepend(item)
        } else {
            titles[item.token]?.lanes[lane].append(item)
        }
    }

    /// Removes a title (finished, failed, canceled): its queued work is dropped, its slot released.
    /// Returns the leases still out, so the caller can tell their workers to stop.
    public mutating func dropTitle(_ token: String) -> [Lease] {
        titles[token] = nil
        admitted.remove(token)
        slotExempt.remove(token)
        waitingForSlot.remove(token)
        let out = leases.values.filter { $0.item.token == token }.sorted { $0.taskID < $1.taskID }
        for lease in out {
            leases[lease.taskID] = nil
            workers[lease.worker]?.leases.remove(lease.taskID)
            released(lease)
        }
        return out
    }

    /// A licensed title's segment work is queued: it waits for a slot.
    public mutating func waitForSlot(_ token: String) { waitingForSlot.insert(token) }

    /// Whether the title waited for a slot (it holds one now).
    public mutating func stopWaiting(_ token: String) -> Bool { waitingForSlot.remove(token) != nil }

    /// A title with no segment work left gives back its slot.
    public mutating func releaseSlot(_ token: String) { admitted.remove(token) }

    /// A recording's segment work never waits for a "titles at once" slot (the live window would move on
    /// meanwhile), and holds none: the per-title and per-host limits still apply.
    public mutating func exemptFromSlots(_ token: String) { slotExempt.insert(token) }

    /// A result arrived. Returns the lease it ends, or nil when it is stale (unknown task, or sent by a
    /// worker other than the one holding the lease): such results are ignored.
    public mutating func complete(taskID: String, from worker: String) -> Lease? {
        guard let lease = leases[taskID], lease.worker == worker else { return nil }
        leases[taskID] = nil
        workers[worker]?.leases.remove(taskID)
        titles[lease.item.token]?.inFlight[lease.item.kind.lane.rawValue] -= 1
        released(lease)
        return lease
    }

    private mutating func released(_ lease: Lease) {
        let item = lease.item
        if let host = item.host {
            hostInFlight[host] = max(0, (hostInFlight[host] ?? 1) - 1)
            connections.finish(host: host, process: lease.process, now: lastNow)
        }
        if item.kind == .license { licensesInFlight = max(0, licensesInFlight - 1) }
    }

    /// A host answered 429/503: no new requests to it before `resumeAt`, and at most half of what was
    /// in flight (at least one) until `recoverAt`.
    public mutating func slowDown(host: String, resumeAt: Double, recoverAt: Double) {
        let current = max(hostInFlight[host] ?? 1, 1)
        let limit = max(1, min(hostBackoff[host]?.limit ?? limits.perHost, current) / 2)
        hostBackoff[host] = HostBackoff(limit: limit, resumeAt: resumeAt, until: max(recoverAt, resumeAt))
    }

    private mutating func hostAllows(_ host: String?, now: Double) -> Bool {
        guard let host else { return true }
        if now < holdHostWorkUntil,
            unfinishedAtStart || workers.values.contains(where: { $0.info.mayHoldConnections ?? true })
        {
            return false
        }
        var limit = limits.perHost
        if let b = hostBackoff[host] {
            if now >= b.until {
                hostBackoff[host] = nil
            } else {
                if now < b.resumeAt { return false }
                limit = min(limit, b.limit)
            }
        }
        return (hostInFlight[host] ?? 0) < limit
    }

    /// Hands out as much queued work as the workers' free capacity and the limits allow.
    /// Order: priority (higher first), then request time, then queue order within a title.
    public mutating func assign(now: Double) -> [Lease] {
        lastNow = max(lastNow, now)
        var out: [Lease] = []
        var free: [WorkerKind: [String]] = [:]
        for w in workers.values where w.free > 0 { free[w.info.kind, default: []].append(w.id) }
        guard !free.isEmpty else { return out }
        let order = titles.sorted(by: Self.servedFirst).map(\.key)
        for lane in WorkItem.Lane.allCases {
            for token in order {
                while let item = peek(token, lane) {
                    let kind = item.kind.workerKind
                    guard let worker = pickWorker(kind, &free) else { break }
                    guard hostAllows(item.host, now: now) else { break }
                    if let host = item.host, peerHosts.contains(host), !peerShareAllows(host, worker) { break }
                    let process = workers[worker].map { "\($0.info.host)/\($0.info.pid)" } ?? worker
                    if let host = item.host,
                        !connections.allows(host: host, process: process, limit: limits.perHost, now: now)
                    {
                        break
                    }
                    if item.kind == .license && licensesInFlight >= limits.licenses { break }
                    if item.kind.needsTitleSlot {
                        if !admitted.contains(token) && !slotExempt.contains(token) {
                            guard admitted.count < limits.titlesAtOnce else { break }
                            admitted.insert(token)
                        }
                        guard (titles[token]?.inFlight[lane.rawValue] ?? 0) < limits.perTitle else { break }
                    }
                    pop(token, lane)
                    counter += 1
                    var lease = Lease(
                        taskID: "\(idPrefix)-\(counter)", item: item, worker: worker, issuedAt: now,
                        deadline: now + timeouts.timeout(for: item.kind), process: process)
                    if case .fetch = item.kind { lease.batch = takeBatch(after: item, lane: lane) }
                    lease.deadline += timeouts.timeout(for: item.kind) * Double(lease.batch.count)
                    leases[lease.taskID] = lease
                    workers[worker]?.leases.insert(lease.taskID)
                    titles[token]?.inFlight[lane.rawValue] += 1
                    if let host = item.host {
                        hostInFlight[host, default: 0] += 1
                        connections.start(host: host, process: process, now: now)
                    }
                    if item.kind == .license { licensesInFlight += 1 }
                    if (workers[worker]?.free ?? 0) == 0 { free[kind]?.removeAll { $0 == worker } }
                    out.append(lease)
                }
            }
        }
        return out
    }

    /// Fetches of the same title and host queued right behind `item`, to go out with it as one batch: at most
    /// `limits.fetchBatch`, and at most a share of the queue that leaves work for every connection the title
    /// may use (so a title's last files are fetched side by side, not one after another in a single batch).
    private mutating func takeBatch(after item: WorkItem, lane: WorkItem.Lane) -> [WorkItem] {
        let queued = titles[item.token]?.queued(lane) ?? 0
        let cap = min(limits.fetchBatch, titles[item.token]?.fetchBatch ?? limits.fetchBatch)
        let size = min(cap - 1, queued / max(1, 2 * limits.perTitle))
        var batch: [WorkItem] = []
        while batch.count < size, let next = peek(item.token, lane), case .fetch = next.kind, next.host == item.host {
            pop(item.token, lane)
            batch.append(next)
        }
        return batch
    }

    /// The least-loaded live worker of a kind with room.
    /// `worker` holds fewer than its ``peerShare(capacity:)`` of tasks for peer host `host`.
    private func peerShareAllows(_ host: String, _ worker: String) -> Bool {
        guard let w = workers[worker] else { return true }
        let held = w.leases.reduce(0) { $0 + (leases[$1]?.item.host == host ? 1 : 0) }
        return held < Self.peerShare(capacity: w.info.capacity)
    }

    private func pickWorker(_ kind: WorkerKind, _ free: inout [WorkerKind: [String]]) -> String? {
        guard let ids = free[kind], !ids.isEmpty else { return nil }
        return ids.min { (workers[$0]?.leases.count ?? 0, $0) < (workers[$1]?.leases.count ?? 0, $1) }
    }

    private func peek(_ token: String, _ lane: WorkItem.Lane) -> WorkItem? {
        titles[token]?.lanes[lane.rawValue].first
    }

    private mutating func pop(_ token: String, _ lane: WorkItem.Lane) {
        _ = titles[token]?.lanes[lane.rawValue].popFirst()
    }

    // MARK: queries

    /// Titles with segment work queued that do not hold a "titles at once" slot, in the order they will get
    /// one (priority, then request time): position 0 is next.
    public func slotQueue() -> [String] {
        titles.filter { !admitted.contains($0.key) && !slotExempt.contains($0.key) && $0.value.queuedSegmentWork }
            .sorted(by: Self.servedFirst)
            .map(\.key)
    }

    /// The order titles are served in: priority (higher first), then request time, then token.
    private static func servedFirst(
        _ a: Dictionary<String, TitleQueue>.Element,
        _ b: Dictionary<String, TitleQueue>.Element
    ) -> Bool {
        if a.value.priority != b.value.priority { return a.value.priority > b.value.priority }
        if a.value.requestedAt != b.value.requestedAt { return a.value.requestedAt < b.value.requestedAt }
        return a.key < b.key
    }

    /// Leases currently out for a title.
    public func inFlight(_ token: String) -> Int { leases.values.filter { $0.item.token == token }.count }

    /// Whether the title has anything queued or out.
    public func hasWork(_ token: String) -> Bool {
        guard let q = titles[token] else { return false }
        return WorkItem.Lane.allCases.contains { q.queued($0) > 0 || q.inFlight[$0.rawValue] > 0 }
    }
}
