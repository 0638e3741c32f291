import CSystemShims
import Foundation
import Logging
import StowageLicensing
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore
import ZeroMQ

/// `stowage-scheduler`: owns the store, the leases and the limits. One thread runs a poll loop over one
/// ROUTER socket (bound to every endpoint) that serves workers and clients alike (Majordomo style).
public final class SchedulerService {
    /// How the scheduler runs (flags and environment of `stowage-scheduler`).
    public struct Options: Sendable {
        /// Where the store, the titles and the ipc endpoint live.
        public var home: StowageHome
        /// Extra endpoints to bind (e.g. `tcp://0.0.0.0:7700`); the ipc endpoint in `run/` is always bound.
        public var binds: [String]
        /// Limits given as flags or environment at start: they override the stored ones for this run.
        public var limitOverrides: LimitSettings
        /// Fetch attempts per resource before the title fails (or, for connectivity, waits for the network).
        public var maxAttempts = 8
        /// A title waiting for the network this long fails with `network` (nil = it waits for ever).
        public var giveUpAfter: Double?
        /// Renew licenses automatically this many seconds before they end (nil = never).
        public var autoRenewBefore: Double?
        /// Re-verify completed titles at rest this often (seconds; nil = never), reading at most
        /// `scrubBytesPerSecond` per file check.
        public var scrubInterval: Double?
        public var scrubBytesPerSecond: Int64?
        /// The scheduler's CURVE key pair and the allow-list of client keys: required for tcp endpoints,
        /// which are always CURVE-encrypted and authenticated.
        public var curveKey: CurveKeyPair?
        public var allowList: AllowList?
        /// The only origin hosts titles may be fetched from (submit URLs, playlists, segments, keys,
        /// redirects); nil = any.
        public var allowedHosts: HostAllowList?
        /// Address ranges opened and closed for every title's fetches (`--allow-networks`, `--deny-networks`).
        public var network = NetworkPolicy()

        /// Options with the defaults for what is not given.
        public init(home: StowageHome, binds: [String], limitOverrides: LimitSettings = LimitSettings()) {
            self.home = home
            self.binds = binds
            self.limitOverrides = limitOverrides
        }
    }

    var options: Options
    let logger: Logger
    let store: Store
    let vault: KeyVault
    var core: SchedulerCore
    let context: Context
    let socket: Socket
    let shutdown: ShutdownSignal
    let waker = Waker()
    /// Authenticates CURVE clients on the tcp endpoints (nil when only ipc is bound).
    var zap: ZAPHandler?
    /// Clients subscribed to title events, by socket identity (renewed by each `subscribe`).
    var subscribers = Subscriptions<[UInt8]>(lifetime: 3 * Double(WireProtocol.heartbeatMilliseconds) / 1000)
    /// Bytes received so far by fetches in flight, per title and task (live progress only).
    var liveBytes: [String: [String: Int64]] = [:]
    /// Work waiting for its retry time, and the failed attempts of resolve / license work.
    var retries = RetryQueue()
    var lastProgressEvent: [String: Double] = [:]
    var nextHeartbeat = 0.0
    var nextDiskCheck = 0.0
    /// The limits `stowctl limits` stored (in force after restarts, under this run's start flags).
    var storedLimits = LimitSettings()
    /// The bandwidth cap in force (live-changeable) and the share last sent to each download worker.
    var bandwidth: Int64?
    var sentShare: [String: Int64] = [:]
    /// Free bytes always kept on the titles' filesystem (live-changeable).
    var diskCushion: Int64 = LimitSettings.defaults.diskCushion!
    /// Hosts that could not be reached, probed until they answer; probe results arrive from other threads.
    var hostWatch = HostWatch()
    let probeInbox = ProbeInbox()
    /// Connectivity failures in a row per `host:port` (reset by any answer from it).
    var hostFailures = HostFailures()
    /// Titles whose segment work waits for a "titles at once" slot (shown as `requested`).
    var waitingForSlot: Set<String> = []
    /// Re-resolutions of titles whose signed URLs were refused: which refusals re-resolve, what waits.
    var urlRefresh = URLRefreshPolicy()
    /// Verifications of completed titles in progress, and when the scrub last checked each title.
    var verifyRuns = VerifyRuns()
    /// Titles with a license renewal queued or running.
    var renewing: Set<String> = []
    /// Recordings: when each rendition reloads its live playlist next.
    var liveReloads = LiveReloads()
    /// Key-only license tasks of recordings (a new key met): task id -> the key positions asked for.
    var keyRequests: [String: [Int]] = [:]
    /// The clock guard: the latest wall-clock time seen and the epoch, bumped each time the wall clock is seen
    /// going back (both persisted).
    var clock: ClockEpoch
    var nextClockCheck = 0.0
    /// Messages dropped because they were malformed.
    public private(set) var droppedMessages = 0
    let metrics = SchedulerMetrics()
    /// Seconds per file of each title's recent fetches, and the batch size its file size allows (fetch batches).
    var fetchPace: [String: Double] = [:]
    var batchBySize: [String: Int] = [:]
    /// Titles whose plan this process saved into a folder that did not exist, with the resources leased since:
    /// a resource not in its title's set has never been fetched (no partial file of it can exist), and its fetch
    /// work says so (``FetchWork/fresh``). Forgotten when the title ends.
    var firstLeases: [String: Set<Int64>] = [:]
    /// The resources each fetch batch lease was sent with, in order (to read its results by), by task id.
    var sentBatches: [String: [Int64]] = [:]
    /// Messages produced inside a store batch, sent once it commits (identity frame first).
    var held: [[[UInt8]]] = []
    /// Decoded request headers per title (fetch work needs them for every segment).
    var headerCache: [String: [Header]] = [:]
    /// Each title's ``FetchScope`` (hosts, addresses, header hosts), by token.
    var scopeCache: [String: FetchScope] = [:]
    let startedAt = monotonic()
    /// When each key last had a refusal logged (a refused caller may insist).
    var forbiddenLog = RateLimitedLog(interval: 60)

    func noteDropped() {
        droppedMessages += 1
        metrics.droppedMessage()
    }

    /// Opens the store and binds every endpoint; ``run()`` serves until `shutdown` is requested.
    public init(options: Options, shutdown: ShutdownSignal, logger: Logger) throws {
        self.options = options
        self.logger = logger
        self.shutdown = shutdown
        try options.home.prepare()
        let store = try Store(path: options.home.storePath)
        self.store = store
        // It holds the master key: no other process of its user (a worker) may read its memory.
        if stowage_forbid_inspection() != 0 {
            logger.warning("could not make the scheduler undumpable (prctl PR_SET_DUMPABLE)")
        }
        vault = KeyVault(masterKey: try KeyVault.loadMasterKey(home: options.home.root))
        clock = ClockEpoch(
            epoch: (try? store.setting(Self.clockEpochSetting)).flatMap { $0.flatMap(Int.init) } ?? 0,
            lastSeen: (try? store.setting(Self.clockLastSeenSetting)).flatMap { $0.flatMap(Double.init) },
            tolerance: Self.clockTolerance)
        let prefix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        core = SchedulerCore(idPrefix: prefix)
        core.holdHostWorkUntil = monotonic() + core.connections.idleSeconds
        context = try Context()
        socket = try context.socket(.router)
        try socket.set(.routerMandatory(true))
        try socket.set(.maxMessageSize(WireProtocol.maxMessageBytes))
        try socket.set(.sendHighWaterMark(100_000))
        try socket.set(.receiveHighWaterMark(100_000))
        let endpoints = [options.home.defaultEndpoint] + options.binds
        if let bad = endpoints.first(where: { !$0.hasPrefix("ipc://") && !$0.hasPrefix("tcp://") }) {
            throw RuntimeError("cannot bind \(bad): the scheduler binds ipc:// and tcp:// endpoints only")
        }
        // ipc first, without security (the socket lives in a 0700 directory); then CURVE for tcp.
        for endpoint in endpoints.filter({ $0.hasPrefix("ipc://") }) { try bind(endpoint) }
        let tcp = endpoints.filter { $0.hasPrefix("tcp://") }
        if !tcp.isEmpty {
            guard let pair = options.curveKey, let allowList = options.allowList else {
                throw RuntimeError(
                    "tcp endpoints are CURVE-encrypted: give --curve-key "
                        + "(make one with `stowctl keys generate scheduler`) and --allow-keys")
            }
            guard let secret = Curve.decode(pair.secretKey) else {
                throw RuntimeError("invalid scheduler CURVE secret key")
            }
            zap = try ZAPHandler(context: context, allowList: allowList, logger: logger)
            try socket.set(.zapDomain("stowage"))
            try socket.set(.curveServer(true))
            try socket.set(.curveSecretKey(secret))
            logger.info(
                "CURVE on tcp endpoints",
                metadata: [
                    "publicKey": "\(pair.publicKey)", "allowList": "\(allowList.path)",
                    "allowedKeys": "\(allowList.keys().count)", "roles": "\(allowList.roleCounts())",
                ])
            for endpoint in tcp { try bind(endpoint) }
        }
        shutdown.notify(waker)
        try loadLimits()
    }

    private func bind(_ endpoint: String) throws {
        try checkEndpoint(endpoint)
        if endpoint.hasPrefix("ipc://") { unlink(String(endpoint.dropFirst(6))) }  // libzmq leaves stale files
        do { try socket.bind(endpoint) } catch {
            throw RuntimeError("cannot bind \(endpoint): \(error). Is another scheduler running for this STOWAGE_HOME?")
        }
        logger.info("listening", metadata: ["endpoint": "\(endpoint)"])
    }

    /// Serves until SIGTERM.
    public func run() throws {
        checkClock()
        try recover()
        while !shutdown.isRequested {
            let ready = try Poller.poll(
                [.socket(socket, .readable), .fileDescriptor(waker.fd, .readable)] + (zap.map { [$0.pollItem] } ?? []),
                timeoutMilliseconds: 100)
            if ready[1].contains(.readable) { waker.drain() }
            if ready.count > 2, ready[2].contains(.readable), let zap {
                let before = zap.refused
                zap.drain()
                for _ in before..<zap.refused { metrics.refusedConnection() }
            }
            if ready[0].contains(.readable) {
                // Group commit: what every message waiting now changes commits in one transaction; replies,
                // events and acknowledgements they produced go out only after it.
                do {
                    try store.batch {
                        var handled = 0
                        while handled < 10_000,
                            let message = try? socket.receive(dontWait: true, property: "User-Id")
                        {
                            receive(message.frames, userID: message.property)
                            handled += 1
                        }
                    }
                    for frames in held { sendNow(frames) }
                } catch {
                    logger.error(
                        "the store could not commit a batch; its replies are dropped",
                        metadata: ["error": "\(error)", "messages": "\(held.count)"])
                }
                held.removeAll(keepingCapacity: true)
            }
            tick()
        }
        logger.info("stopping: state is persisted; the next start resumes")
        socket.close(linger: 200)
        zap?.close()
    }

    /// Sends to one peer; a peer that is gone is not an error for us. Inside a store batch the message is held
    /// until the batch commits (and counts as sent).
    @discardableResult
    func send(_ identity: [UInt8], _ frames: [[UInt8]]) -> Bool {
        if store.inBatch {
            held.append([identity] + frames)
            return true
        }
        return sendNow([identity] + frames)
    }

    /// Sends a message whose first frame is the peer's identity; a subscriber that is gone is dropped.
    @discardableResult
    private func sendNow(_ frames: [[UInt8]]) -> Bool {
        do {
            try socket.send(frames, dontWait: true)
            return true
        } catch {
            let peer = frames.first ?? []
            logger.debug("send failed", metadata: ["peer": "\(FrameCodec.printable(peer))", "error": "\(error)"])
            subscribers.remove(peer)
            return false
        }
    }

    /// One message, from the peer whose ZAP user id is `userID` (nil over ipc): see ``Caller``.
    private func receive(_ frames: [[UInt8]], userID: String?) {
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
        guard let caller = admit(envelope, from: identity, userID: userID) else { return }
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

    private func tick() {
        let t = monotonic()
        let (dead, requeued) = core.expire(now: t)
        for id in dead {
            logger.warning("worker declared dead; its leases go back to the queue", metadata: ["worker": "\(id)"])
        }
        if !requeued.isEmpty { logger.info("re-issuing work", metadata: ["items": "\(requeued.count)"]) }
        if !retries.isEmpty {
            for item in retries.due(now: t) { core.enqueue(item) }
        }
        if t >= nextHeartbeat {
            for id in core.workers.keys { send(Array(id.utf8), FrameCodec.encode(.heartbeat)) }
            subscribers.expire(now: t)
            shareBandwidth()
            metrics.refresh(titles: (try? store.titleCounts()) ?? [:], core: core, now: t)
            nextHeartbeat = t + Double(WireProtocol.heartbeatMilliseconds) / 1000
        }
        if t >= nextClockCheck {
            nextClockCheck = t + 10
            checkClock()
            autoRenew()
            scrub()
        }
        if t >= nextDiskCheck {
            nextDiskCheck = t + 2
            resumeAfterDiskFull()
            giveUpWaiting(now: t)
        }
        watchNetwork(now: t)
        queueDueReloads(now: t)
        dispatch(now: t)
    }
}

extension SchedulerService {
    /// Sends each download worker its share of the bandwidth cap when the cap or the workers change.
    func shareBandwidth() {
        let downloaders = core.workers.values.filter { $0.info.kind == .download }.map(\.id)
        let share: Int64 = bandwidth.map { $0 > 0 ? max(1, $0 / Int64(max(1, downloaders.count))) : 0 } ?? 0
        for id in downloaders where sentShare[id] != share {
            if send(Array(id.utf8), FrameCodec.encode(.limits, WorkerLimits(bytesPerSecond: share > 0 ? share : nil))) {
                sentShare[id] = share
            }
        }
        sentShare = sentShare.filter { downloaders.contains($0.key) }
    }
}
