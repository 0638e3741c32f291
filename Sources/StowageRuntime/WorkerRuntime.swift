import Foundation
import Logging
import StowageProtocol
import Synchronization
import ZeroMQ

/// What a worker does with a task. Runs on the Swift concurrency pool; never touches sockets.
public protocol TaskHandler: Sendable {
    /// Carries out one task. `progress` may be called with bytes done so far (throttle it).
    func handle(_ task: TaskAssignment, progress: @escaping @Sendable (Int64) -> Void) async -> Outcome
    /// The scheduler sent this worker's share of the global limits.
    func apply(_ limits: WorkerLimits)
}

extension TaskHandler {
    public func apply(_ limits: WorkerLimits) {}
}

/// The worker side of the protocol (Paranoid Pirate): register, heartbeat, detect a dead scheduler and
/// reconnect on a fresh socket with backoff, run tasks concurrently, stop gracefully when asked.
///
/// With several scheduler endpoints (a farm's schedulers, one leading) it is connected to one at a time — a
/// DEALER connected to several would deal its messages round-robin among them — and moves to the next when the
/// one it has is silent for the liveness time (a standby gives workers nothing, not even heartbeats), round and
/// round until one answers; the backoff grows only once a whole round has failed.
///
/// One thread (the caller of ``run()``) creates and owns the socket; finished tasks reach it through an
/// ``Outbox``. Everything else here is immutable or behind a lock, so the runtime itself is `Sendable`.
public final class WorkerRuntime: Sendable {
    public struct Options: Sendable {
        public var kind: WorkerKind
        public var capacity: Int
        /// The schedulers' endpoints, tried in this order (one: that scheduler alone, as always).
        public var endpoints: [String]
        /// CURVE keys, required for a tcp endpoint.
        public var curve: CurveClientKeys?
        /// Seconds to let tasks in flight finish after a stop is requested (SIGTERM).
        public var gracePeriod: Double = 10

        public init(kind: WorkerKind, capacity: Int, endpoints: [String]) {
            self.kind = kind
            self.capacity = capacity
            self.endpoints = endpoints
        }

        public init(kind: WorkerKind, capacity: Int, endpoint: String) {
            self.init(kind: kind, capacity: capacity, endpoints: [endpoint])
        }
    }

    private let options: Options
    private let handler: TaskHandler
    private let logger: Logger
    private let context: Context
    private let outbox = Outbox()
    private let shutdown: ShutdownSignal
    private let running = Mutex<[String: Task<Void, Never>]>([:])
    /// Whether a task has been started: from then on the process may hold idle connections.
    private let tookTasks = Atomic<Bool>(false)
    private let host = ProcessInfo.processInfo.hostName
    private let metrics = WorkerMetrics()
    /// The highest scheduler term seen: a task of an older one (a deposed leader's) is dropped.
    private let terms = Mutex(TermWatch())

    public init(options: Options, handler: TaskHandler, shutdown: ShutdownSignal, logger: Logger) throws {
        self.options = options
        self.handler = handler
        self.shutdown = shutdown
        self.logger = logger
        context = try Context()
        shutdown.notify(outbox.waker)
    }

    private func openSocket(_ endpoint: String) throws -> Socket {
        let socket = try context.socket(.dealer)
        let id = "\(options.kind.rawValue)-\(host)-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
        try socket.set(.routingID(Array(id.utf8)))
        try socket.set(.maxMessageSize(WireProtocol.maxMessageBytes))
        try socket.set(.sendHighWaterMark(10_000))
        try socket.set(.reconnectInterval(100))
        try socket.set(.reconnectIntervalMax(2_000))
        if endpoint.hasPrefix("tcp://") { try options.curve?.apply(to: socket) }
        try socket.connect(endpoint)
        logger.info("connecting", metadata: ["endpoint": "\(endpoint)", "worker": "\(id)"])
        return socket
    }

    private func register(_ socket: Socket) {
        let info = Register(
            kind: options.kind, capacity: options.capacity, host: host, pid: getpid(),
            mayHoldConnections: tookTasks.load(ordering: .relaxed))
        try? socket.send(FrameCodec.encode(.register, info), dontWait: true)
    }

    /// Runs until `shutdown` is triggered, then lets tasks finish within the grace period. Returns when stopped.
    public func run() throws {
        let heartbeat = Double(WireProtocol.heartbeatMilliseconds) / 1000
        let deadAfter = heartbeat * Double(WireProtocol.liveness)
        // Reconnects since the scheduler last answered a registration: how long the next one waits.
        var reconnects = 0
        // The endpoint connected to: the next one after each silence.
        var endpoint = 0
        guard !options.endpoints.isEmpty else { throw RuntimeError("no scheduler endpoint given", code: .refused) }
        var socket = try openSocket(options.endpoints[endpoint])
        register(socket)
        var lastHeard = monotonic()
        // When the loop last came round: a far longer gap means this process was stopped (SIGSTOP, a paused VM).
        var lastTurn = monotonic()
        var nextHeartbeat = monotonic() + heartbeat
        var stopDeadline: Double?
        while true {
            let t = monotonic()
            if shutdown.isRequested && stopDeadline == nil {
                stopDeadline = t + options.gracePeriod
                logger.info(
                    "stopping: waiting for tasks in flight",
                    metadata: ["tasks": "\(running.withLock { $0.count })"])
            }
            if let stopDeadline, running.withLock({ $0.isEmpty }) || t > stopDeadline { break }
            let wait = max(0, Int((nextHeartbeat - t) * 1000))
            let ready = try Poller.poll(
                [.socket(socket, .readable), .fileDescriptor(outbox.waker.fd, .readable)],
                timeoutMilliseconds: min(wait, 250))
            if ready[1].contains(.readable) {
                for frames in outbox.take() { try? socket.send(frames, dontWait: true) }
            }
            if ready[0].contains(.readable) {
                while let frames = try? socket.receive(dontWait: true) {
                    lastHeard = monotonic()
                    handle(frames, socket: socket, stopping: stopDeadline != nil, reconnects: &reconnects)
                }
            }
            let after = monotonic()
            // A process that was stopped heard nothing while stopped: that is not the scheduler's silence. The
            // scheduler gets a whole liveness period from now (what it sent meanwhile may still be on its way in),
            // so a result finished while stopped goes out instead of being abandoned by a reconnect.
            if after - lastTurn > deadAfter { lastHeard = after }
            lastTurn = after
            if after >= nextHeartbeat {
                try? socket.send(FrameCodec.encode(.heartbeat), dontWait: true)
                nextHeartbeat = after + heartbeat
            }
            if after - lastHeard > deadAfter && stopDeadline == nil {
                let hint =
                    options.curve == nil
                    ? ""
                    : " (over tcp: is this worker's public key on the scheduler's allow-list?)"
                let backoff = Backoff.reconnect.delay(afterFailures: reconnects / options.endpoints.count)
                let silent = options.endpoints[endpoint]
                endpoint = (endpoint + 1) % options.endpoints.count
                logger.warning(
                    "scheduler silent; reconnecting\(hint)",
                    metadata: [
                        "after_s": "\(backoff)", "silent": "\(silent)", "next": "\(options.endpoints[endpoint])",
                    ])
                socket.close(linger: 0)
                sleepOnOutbox(until: monotonic() + backoff) { !shutdown.isRequested }
                outbox.waker.wake()  // what tasks posted meanwhile goes out on the next turn (unless abandoned)
                reconnects += 1
                metrics.reconnected()
                abandonTasks()
                socket = try openSocket(options.endpoints[endpoint])
                register(socket)
                lastHeard = monotonic()
                lastTurn = lastHeard
            }
        }
        for frames in outbox.take() { try? socket.send(frames, dontWait: true) }
        try? socket.send(FrameCodec.encode(.bye), dontWait: true)
        socket.close(linger: 500)
        logger.info("stopped")
    }

    private func handle(_ frames: [[UInt8]], socket: Socket, stopping: Bool, reconnects: inout Int) {
        let envelope: Envelope
        do { envelope = try FrameCodec.decode(frames) } catch {
            logger.warning("dropped message from scheduler", metadata: ["error": "\(error)"])
            return
        }
        switch envelope.command {
        case .registered:
            reconnects = 0
            logger.info("registered")
        case .reregister:
            logger.info("scheduler asked to register again")
            abandonTasks()
            register(socket)
        case .heartbeat:
            break
        case .task:
            guard !stopping, let task = try? FrameCodec.body(TaskAssignment.self, from: envelope) else { return }
            guard terms.withLock({ $0.admits(task.term) }) else {
                logger.warning("dropped a task of a deposed scheduler", metadata: ["term": "\(task.term ?? 0)"])
                return
            }
            tookTasks.store(true, ordering: .relaxed)
            start(task)
        case .limits:
            guard let limits = try? FrameCodec.body(WorkerLimits.self, from: envelope) else { return }
            handler.apply(limits)
            let rate = limits.bytesPerSecond.map(String.init) ?? "unlimited"
            logger.info("limits", metadata: ["bytesPerSecond": "\(rate)"])
        case .cancelTask:
            guard let cancel = try? FrameCodec.body(CancelTask.self, from: envelope) else { return }
            running.withLock { $0[cancel.taskID]?.cancel() }
        default:
            logger.debug("ignored \(envelope.command.rawValue)")
        }
    }

    /// Tasks leased by a scheduler that no longer knows us are stale: stop them (a fetch keeps its
    /// partial bytes for the next attempt) so they do not run beside the work the new lease-holder hands out.
    /// Waits (at most 5 s) until they have ended, so their requests are closed before new work arrives: each
    /// task wakes the outbox when it leaves the table.
    private func abandonTasks() {
        let stale = running.withLock { $0.values }
        guard !stale.isEmpty else { return }
        logger.info("abandoning stale tasks", metadata: ["tasks": "\(stale.count)"])
        for task in stale { task.cancel() }
        sleepOnOutbox(until: monotonic() + 5) { !running.withLock { $0.isEmpty } }
        _ = outbox.take()  // their results are stale
    }

    /// Sleeps in `poll` on the outbox's waker until `deadline`, or until `condition` no longer holds (checked
    /// at each wake-up: a task ending, a stop). Clears the wake-ups but keeps the queued messages.
    private func sleepOnOutbox(until deadline: Double, while condition: () -> Bool) {
        while condition() {
            let left = deadline - monotonic()
            guard left > 0 else { return }
            _ = try? Poller.poll(
                [.fileDescriptor(outbox.waker.fd, .readable)],
                timeoutMilliseconds: Int((left * 1000).rounded(.up)))
            outbox.waker.drain()
        }
    }

    private func start(_ task: TaskAssignment) {
        let outbox = self.outbox
        let handler = self.handler
        let logger = self.logger
        let metrics = self.metrics
        let began = monotonic()
        // At debug level, which files each fetch task names: how a test tells what was leased after a restart.
        if case .fetchBatch(let batch) = task.work {
            logger.debug("fetch task", metadata: ["task": "\(task.taskID)", "files": "\(batch.items.map(\.path))"])
        } else if case .fetch(let work) = task.work {
            logger.debug("fetch task", metadata: ["task": "\(task.taskID)", "files": "\([work.path])"])
        }
        // Registered under the lock before it can finish, so the table never keeps a finished task.
        running.withLock { table in
            table[task.taskID] = Task { [self] in
                let outcome = await handler.handle(task) { bytes in
                    let report = TaskProgress(taskID: task.taskID, token: task.token, bytes: bytes)
                    outbox.post(FrameCodec.encode(.progress, report))
                }
                metrics.finished(task.work, outcome: outcome, seconds: monotonic() - began)
                if case .failed(let f) = outcome {
                    logger.info(
                        "task failed",
                        metadata: [
                            "task": "\(task.taskID)", "token": "\(task.token)",
                            "code": "\(f.code.rawValue)", "error": "\(f.message)",
                        ])
                }
                // The result is queued before the task leaves the table: a loop that sees the table empty
                // finds every result in the outbox.
                outbox.post(
                    FrameCodec.encode(
                        .result,
                        TaskResult(
                            taskID: task.taskID, token: task.token,
                            outcome: outcome)))
                metrics.tasks(
                    inFlight: self.running.withLock { table in
                        table.removeValue(forKey: task.taskID)
                        return table.count
                    })
                // Wakes a loop that waits for the table to empty (graceful stop, abandoned tasks).
                outbox.waker.wake()
            }
            metrics.tasks(inFlight: table.count)
        }
    }
}
