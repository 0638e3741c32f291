import Foundation
import Logging
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageSchedulerService
import StowageStore
import StowageTestSupport

/// Collects what the scheduler sends, by peer; a peer marked gone refuses its messages (as ROUTER_MANDATORY
/// does for a peer that disconnected).
final class Outbox: FrameOutlet {
    private(set) var sent: [(peer: String, envelope: Envelope)] = []
    var gone: Set<String> = []

    func send(_ frames: [[UInt8]]) -> Bool {
        let peer = String(decoding: frames[0], as: UTF8.self)
        guard !gone.contains(peer), let envelope = try? FrameCodec.decode(Array(frames.dropFirst())) else {
            return false
        }
        sent.append((peer, envelope))
        return true
    }

    /// What `peer` was sent since the last take.
    func take(_ peer: String) -> [Envelope] {
        let mine = sent.filter { $0.peer == peer }.map(\.envelope)
        sent.removeAll { $0.peer == peer }
        return mine
    }
}

/// Failures of a driven scenario, with what was seen.
struct DriverError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The store engine a driven scheduler runs on: SQLite in memory (the default), or a fresh database of the tests'
/// PostgreSQL (``TestPostgres``).
enum DriverEngine: String, CaseIterable, Sendable {
    case sqlite
    case postgres

    /// What a driver not told otherwise runs on: `STOWAGE_TEST_DRIVER_STORE=postgres` runs every service suite on
    /// PostgreSQL (docs/testing.md), else SQLite.
    static var standard: DriverEngine {
        ProcessInfo.processInfo.environment["STOWAGE_TEST_DRIVER_STORE"] == "postgres" ? .postgres : .sqlite
    }

    func store() throws -> Store {
        switch self {
        case .sqlite: try Store()
        case .postgres: try Store(location: StoreLocation.parse(TestPostgres.shared().createDatabase()))
        }
    }
}

/// The scheduler service in-process: a temporary home, a store that outlives "restarts" (in memory, or a PostgreSQL
/// database), a manual clock, and fake workers and clients that speak frames. Each step runs synchronously: no
/// threads, no sleeps.
final class ServiceDriver {
    let clock = ManualClock()
    let outbox = Outbox()
    let home: URL
    let store: Store
    private(set) var service: SchedulerService
    private let configure: (inout SchedulerService.Options) -> Void
    private var requests = 0
    /// Workers that heartbeat whenever time passes (a registered worker is alive until silenced).
    private var alive: Set<String> = []

    /// The term the service leads (nil: no election, as by default).
    private let term: Int64?

    /// `engine` (the store's: SQLite in memory by default), or a `store` of the test's own, and `term` (the
    /// service's, carried by its tasks) let a test run the service as the leader of a shared store.
    init(
        engine: DriverEngine = .standard, store: Store? = nil, term: Int64? = nil,
        _ configure: @escaping (inout SchedulerService.Options) -> Void = { _ in }
    ) throws {
        home = URL(fileURLWithPath: "/tmp/sst-\(UInt32.random(in: 0...UInt32.max))")
        self.store = try store ?? engine.store()
        self.configure = configure
        self.term = term
        service = try Self.makeService(
            home: home, store: self.store, clock: clock, outbox: outbox, term: term, configure: configure)
    }

    deinit {
        service.close()
        try? FileManager.default.removeItem(at: home)
    }

    private static func makeService(
        home: URL, store: Store, clock: ManualClock, outbox: Outbox, term: Int64? = nil,
        configure: (inout SchedulerService.Options) -> Void
    ) throws -> SchedulerService {
        var options = SchedulerService.Options(home: StowageHome(option: home.path), binds: [])
        configure(&options)
        var logger = Logger(label: "scheduler-under-test")
        logger.logLevel = .critical
        let service = try SchedulerService(
            options: options, shutdown: ShutdownSignal(), logger: logger, clock: clock, store: store, term: term)
        service.divert(to: outbox)
        try service.start()
        return service
    }

    /// The process is killed and started again over the same store (leases and memory are gone).
    func restart() throws {
        service.close()
        service = try Self.makeService(
            home: home, store: store, clock: clock, outbox: outbox, term: term, configure: configure)
    }

    /// Delivers one message from `peer`.
    func deliver(_ peer: String, _ frames: [[UInt8]]) {
        service.receive([Array(peer.utf8)] + frames, userID: nil)
    }

    /// One pass of the scheduler's loop.
    func tick() { service.tick() }

    /// Time passes (live workers heartbeat), then one pass of the loop.
    func advance(_ seconds: Double) {
        clock.advance(seconds)
        for worker in alive.sorted() { deliver(worker, FrameCodec.encode(.heartbeat)) }
        tick()
    }

    /// The worker stops sending anything (SIGSTOP, a cut cable) until it registers again.
    func silence(_ worker: String) { alive.remove(worker) }

    // MARK: workers

    func register(_ worker: String, _ kind: WorkerKind, capacity: Int = 4) {
        alive.insert(worker)
        deliver(
            worker,
            FrameCodec.encode(
                .register, Register(kind: kind, capacity: capacity, host: "test", pid: 1, mayHoldConnections: false)))
    }

    /// The tasks `worker` has been sent (after a pass of the loop).
    func tasks(for worker: String) throws -> [TaskAssignment] {
        tick()
        return try outbox.take(worker).filter { $0.command == .task }.map {
            try FrameCodec.body(TaskAssignment.self, from: $0)
        }
    }

    /// The one task `worker` has been sent.
    func task(for worker: String) throws -> TaskAssignment {
        let tasks = try tasks(for: worker)
        guard tasks.count == 1 else { throw DriverError("\(worker) got \(tasks.count) tasks, not one: \(tasks)") }
        return tasks[0]
    }

    func answer(_ worker: String, _ task: TaskAssignment, _ outcome: Outcome) {
        deliver(
            worker, FrameCodec.encode(.result, TaskResult(taskID: task.taskID, token: task.token, outcome: outcome)))
    }

    /// Answers every fetch task `worker` gets as fetched, until none comes (at most `rounds` passes).
    func fetchEverything(_ worker: String, rounds: Int = 10) throws {
        for _ in 0..<rounds {
            let tasks = try tasks(for: worker)
            if tasks.isEmpty { return }
            for task in tasks { try fetchedAll(worker, task) }
        }
    }

    /// A fetch task's files answered as fetched and hashed (verified as they streamed in).
    func fetchedAll(_ worker: String, _ task: TaskAssignment, bytes: Int64 = 1_000) throws {
        switch task.work {
        case .fetch:
            answer(worker, task, .fetched(Self.hashed(bytes)))
        case .fetchBatch(let batch):
            answer(
                worker, task,
                .fetchedBatch(FetchBatchReport(results: batch.items.map { _ in .fetched(Self.hashed(bytes)) })))
        default:
            throw DriverError("not a fetch task: \(task.work)")
        }
    }

    static func hashed(_ bytes: Int64) -> FetchReport {
        FetchReport(bytes: bytes, contentLength: bytes, sha256: String(repeating: "ab", count: 32))
    }

    // MARK: clients

    /// A client's request and the scheduler's answer.
    func request(_ operation: ClientOperation, from client: String = "client") throws -> ReplyBody {
        requests += 1
        let id = "r\(requests)"
        deliver(client, FrameCodec.encode(.request, ClientRequest(requestID: id, operation: operation)))
        for envelope in outbox.take(client) where envelope.command == .reply {
            let reply = try FrameCodec.body(ClientReply.self, from: envelope)
            if reply.requestID == id { return reply.result }
        }
        throw DriverError("no reply to \(operation)")
    }

    func submit(_ url: String = "http://origin.test/show/master.m3u8") throws -> String {
        let reply = try request(
            .submit(SubmitRequest(url: url, name: nil, priority: 0, headers: [], selection: Selection())))
        guard case .submitted(let token) = reply else { throw DriverError("submit answered \(reply)") }
        return token
    }

    func status(_ token: String) throws -> TitleStatus {
        let reply = try request(.status(token: token))
        guard case .title(let status) = reply else { throw DriverError("status answered \(reply)") }
        return status
    }

    func state(_ token: String) throws -> TitleState? { try store.title(token)?.state }

    /// The title's recorded moves, e.g. `requested -> licensing`.
    func moves(_ token: String) throws -> [String] {
        try store.events(token: token).filter { $0.kind == "state" }.map(\.detail)
    }

    // MARK: scenarios

    /// A plan of `files` segments of one rendition, without keys.
    static func plan(files: Int, source: String = "http://origin.test/show/") -> ResolvedPlan {
        let playlist =
            "#EXTM3U\n#EXT-X-TARGETDURATION:4\n"
            + (0..<files).map { "#EXTINF:4,\nseg\($0).ts\n" }.joined() + "#EXT-X-ENDLIST\n"
        return ResolvedPlan(
            masterPlaylist: "",
            renditions: [
                PlannedRendition(
                    kind: .video, sourceURL: source + "media.m3u8", localPath: "media.m3u8", playlist: playlist)
            ],
            resources: (0..<files).map {
                PlannedResource(
                    kind: .segment, rendition: 0, url: source + "seg\($0).ts", rangeOffset: nil, rangeLength: nil,
                    localPath: "seg\($0).ts", container: .mpegTS, encrypted: false, duration: 4)
            },
            bytesEstimate: Int64(files) * 1_000)
    }

    /// A plan of `files` segments named as the HLS planner names them (`video/index.m3u8`,
    /// `video/seg-000000.ts` …): what a bundle import holds a plan to.
    static func namedPlan(files: Int, source: String = "http://origin.test/show/") -> ResolvedPlan {
        var plan = plan(files: files, source: source)
        plan.renditions[0].localPath = "video/index.m3u8"
        for i in plan.resources.indices { plan.resources[i].localPath = String(format: "video/seg-%06d.ts", i) }
        plan.renditions[0].playlist = plan.renditions[0].playlist.replacingOccurrences(of: "seg", with: "seg-00000")
        return plan
    }

    /// Submits a title and walks it through resolve and license with workers `dl` and `lic`: it is then
    /// queued for its fetches. `plan` replaces ``plan(files:source:)``.
    func licensedTitle(
        files: Int = 3, terms: GrantedTerms? = nil, source: String = "http://origin.test/show/",
        plan: ResolvedPlan? = nil
    ) throws -> String {
        register("dl", .download)
        register("lic", .license)
        let token = try submit(source + "master.m3u8")
        answer("dl", try task(for: "dl"), .resolved(plan ?? Self.plan(files: files, source: source)))
        let license = try task(for: "lic")
        answer(
            "lic", license,
            .licensed(LicenseGrant(terms: terms ?? GrantedTerms(kind: .purchase, requestedAt: clock.now()))))
        return token
    }
}
