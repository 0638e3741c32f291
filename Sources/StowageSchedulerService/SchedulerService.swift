import CSystemShims
import Foundation
import Logging
import StowageBundle
import StowageLicensing
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore
import ZeroMQ

/// `stowage-scheduler`: owns the store, the leases and the limits. One thread runs a poll loop over one
/// ROUTER socket (bound to every endpoint) that serves workers and clients alike (Majordomo style).
public final class SchedulerService {
    /// How the scheduler runs (``SchedulerOptions``).
    public typealias Options = SchedulerOptions

    let options: Options
    let logger: Logger
    let store: Store
    /// Wraps content keys with the master key before they touch the store.
    let vault: KeyVault
    /// This box's bundle identity (`box.key` beside `master.key`): signs exports, opens keys sealed for it.
    let box: BoxIdentity
    /// Monotonic time for leases, deadlines and rates; wall time for what is stored or shown.
    let clock: any SchedulerClock
    /// Workers, leases, queues and limits: the decisions of who does what next.
    var core: SchedulerCore
    /// What is remembered between messages, per concern.
    package var memory: SchedulerMemory
    let endpoint: SchedulerEndpoint
    let shutdown: ShutdownSignal
    let metrics: SchedulerMetrics
    /// Which title is being handled, for a trap not to recur at every start (``CrashJournal``).
    let journal: CrashJournal
    /// The concerns beside the title pipeline (``SchedulerComponent``), registered in ``makeComponents(_:)``.
    let components: ComponentRegistry
    /// What each caller's key may ask.
    var gate: AccessGate
    /// The term this scheduler leads, carried by every task it hands out (nil: run without an election, as
    /// in-process tests do). A fresh service runs each term (``LeaderLoop``).
    let term: Int64?
    /// Whether this term may still read messages and hand out work (``LeaderLoop``: its lease holds on our clock and
    /// no write was fenced); asked after every wait and before work goes out. Always true without an election.
    package var mayServe: () -> Bool = { true }
    /// What workers are sent for their leases.
    private(set) lazy var messages = TaskMessages(
        store: store, vault: vault, options: options, components: components,
        isFresh: { [unowned self] in memory.pacing.isFresh($0, resource: $1) })

    func noteDropped() { metrics.droppedMessage() }

    /// Opens the store and binds every endpoint; ``run()`` serves until `shutdown` is requested.
    /// `store` (in-process tests: an in-memory one) replaces the store under `options.home`.
    public convenience init(options: Options, shutdown: ShutdownSignal, logger: Logger) throws {
        try self.init(options: options, shutdown: shutdown, logger: logger, clock: SystemClock(), store: nil)
    }

    package init(
        options: Options, shutdown: ShutdownSignal, logger: Logger, clock: any SchedulerClock, store: Store?,
        endpoint: SchedulerEndpoint? = nil, term: Int64? = nil
    ) throws {
        self.term = term
        self.options = options
        self.logger = logger
        self.shutdown = shutdown
        self.clock = clock
        try options.home.prepare()
        let store = try store ?? Store(location: options.store ?? .sqlite(path: options.home.storePath))
        self.store = store
        journal = try CrashJournal(path: options.home.runDirectory.appendingPathComponent("scheduler.journal").path)
        // It holds the master key: no other process of its user (a worker) may read its
        if stowage_forbid_inspection() != 0 {
            logger.warning("could not make the scheduler undumpable (prctl PR_SET_DUMPABLE)")
        }
        vault = KeyVault(masterKey: try KeyVault.loadMasterKey(home: options.home.root))
        box = try BoxIdentity.loadOrCreate(home: options.home.root)
        memory = SchedulerMemory(heartbeat: Self.heartbeat)
        metrics = SchedulerMetrics(startedAt: clock.monotonic())
        let prefix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        core = SchedulerCore(idPrefix: prefix)
        core.holdHostWorkUntil = clock.monotonic() + core.connections.idleSeconds
        self.endpoint =
            try endpoint
            ?? SchedulerEndpoint(
                home: options.home, binds: options.binds, curveKey: options.curveKey, allowList: options.allowList,
                logger: logger, clock: clock)
        shutdown.notify(self.endpoint.waker)
        components = ComponentRegistry(logger: logger)
        gate = AccessGate(logger: logger)
        try makeComponents(
            ComponentContext(desk: self, store: store, clock: clock, home: options.home, logger: logger))
    }

    /// Serves until SIGTERM.
    public func run() throws {
        try start()
        while !shutdown.isRequested { _ = try turn() }
        logger.info("stopping: state is persisted; the next start resumes")
        endpoint.close()
    }

    /// One turn of the loop: waits up to 100 ms for messages, then handles them and the timers, each only while
    /// ``mayServe`` holds. False when it stopped for it.
    func turn() throws -> Bool {
        let (readable, refused) = try endpoint.poll()
        for _ in 0..<refused { metrics.refusedConnection() }
        guard mayServe() else { return false }
        if readable { receiveWaiting() }
        guard mayServe() else { return false }
        tick()
        return true
    }

    /// Frames for peers go to `outlet` instead of the socket (in-process tests play the workers and clients).
    package func divert(to outlet: any FrameOutlet) { endpoint.outlet = outlet }

    /// Closes the socket without the loop (in-process tests, before a "restart" over the same store).
    package func close() { endpoint.close() }

    /// Before the first message: the clock guard, then recovery of what the store says was under way.
    package func start() throws {
        if options.fillWindow != nil || options.bandwidthSchedule != nil {
            logger.notice(
                "fill windows and bandwidth schedule in local time",
                metadata: [
                    "fillWindow": "\(options.fillWindow.map(String.init(describing:)) ?? "none")",
                    "bandwidthSchedule": "\(options.bandwidthSchedule.map(String.init(describing:)) ?? "none")",
                    "timeZone": "\(options.timeZone.identifier)",
                ])
        }
        clockGuard?.check()
        try crash?.failAfterCrash()
        try recover()
        try components.start()
    }

    /// Group commit: what every message waiting now changes commits in one transaction; replies, events and
    /// acknowledgements they produced go out only after it.
    func receiveWaiting() {
        do {
            try store.batch {
                var handled = 0
                while handled < 10_000, let message = endpoint.receive() {
                    receive(message.frames, userID: message.userID)
                    handled += 1
                }
                journal.idle()
            }
            for frames in endpoint.held { sendNow(frames) }
        } catch {
            logger.error(
                "the store could not commit a batch; its replies are dropped",
                metadata: ["error": "\(error)", "messages": "\(endpoint.held.count)"])
        }
        endpoint.held.removeAll(keepingCapacity: true)
    }

    /// Runs `body` as one store transaction outside a message's handling (an import registered at a tick), then
    /// sends the replies and events it produced; a failed commit drops them, as for a batch of messages.
    func inOneTransaction(_ body: () -> Void) throws {
        defer { endpoint.held.removeAll(keepingCapacity: true) }
        try store.batch(body)
        for frames in endpoint.held { sendNow(frames) }
    }

    /// Sends to one peer; a peer that is gone is not an error for us. Inside a store batch the message is held
    /// until the batch commits (and counts as sent).
    @discardableResult
    func send(_ identity: [UInt8], _ frames: [[UInt8]]) -> Bool {
        if store.inBatch {
            endpoint.held.append([identity] + frames)
            return true
        }
        return sendNow([identity] + frames)
    }

    /// Sends a message whose first frame is the peer's identity; a subscriber that is gone is dropped.
    @discardableResult
    private func sendNow(_ frames: [[UInt8]]) -> Bool {
        do {
            try endpoint.send(frames)
            return true
        } catch {
            let peer = frames.first ?? []
            logger.debug("send failed", metadata: ["peer": "\(FrameCodec.printable(peer))", "error": "\(error)"])
            subscribers?.gone(peer)
            return false
        }
    }

    /// One message, from the peer whose ZAP user id is `userID` (nil over ipc): see ``Caller``.
    package func receive(_ frames: [[UInt8]], userID: String?) {
        guard frames.count >= 2 else {
            noteDropped()
            logger.warning("dropped malformed message", metadata: ["reason": "no identity frame"])
            return
        }
        let identity = frames[0]
        let envelope: Envelope
        do { envelope = try FrameCodec.decode(Array(frames.dropFirst())) } catch {
            noteDropped()
            logger.warning(
                "dropped malformed message",
                metadata: ["peer": "\(FrameCodec.printable(identity))", "reason": "\(error)"])
            return
        }
        let caller: Caller
        switch gate.admit(envelope, userID: userID, now: clock.monotonic()) {
        case .admitted(let admitted): caller = admitted
        case .refused(let reply):
            if let reply { send(identity, FrameCodec.encode(.reply, reply)) }
            return
        }
        do {
            switch envelope.command {
            case .register, .heartbeat, .result, .progress, .bye:
                try handleWorker(identity, envelope)
            case .request:
                try handleClient(identity, envelope, caller: caller)
            default:
                throw ProtocolError(.unknownCommand, "\(envelope.command.rawValue) is not accepted by the scheduler")
            }
        } catch let error as ProtocolError {
            noteDropped()
            logger.warning(
                "dropped message", metadata: ["peer": "\(FrameCodec.printable(identity))", "reason": "\(error)"])
        } catch {
            logger.error("failed to handle \(envelope.command.rawValue)", metadata: ["error": "\(error)"])
        }
    }

    /// Every pass of the loop: leases and workers that timed out, retries due, the heartbeat, the components'
    /// timers (fill windows among them, before new work goes out; the limits' shares and schedule, the clock guard,
    /// subscribers' expiry, recordings' reloads, the scrub, the quota, the network watch) and new work out.
    package func tick() {
        let t = clock.monotonic()
        let expiry = core.expireReporting(now: t)
        for id in expiry.dead {
            logger.warning("worker declared dead; its leases go back to the queue", metadata: ["worker": "\(id)"])
        }
        if !expiry.requeued.isEmpty {
            logger.info("re-issuing work", metadata: ["items": "\(expiry.requeued.count)"])
        }
        crash?.lost(expiry.lostWithWorkers)
        if !memory.retries.isEmpty {
            for item in memory.retries.due(now: t) { core.enqueue(item) }
        }
        if memory.heartbeat.isDue(now: t) {
            for id in core.workers.keys { send(Array(id.utf8), FrameCodec.encode(.heartbeat)) }
            metrics.refresh(titles: (try? store.titleCounts()) ?? [:], core: core, now: t)
        }
        components.tick(now: t)
        dispatch(now: t)
    }

    /// Seconds between heartbeats to workers (the wire protocol's).
    static let heartbeat = Double(WireProtocol.heartbeatMilliseconds) / 1000
}
