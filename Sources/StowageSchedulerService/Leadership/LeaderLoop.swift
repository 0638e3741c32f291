import CSystemShims
import Foundation
import Logging
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// The scheduler process among others sharing its store: standby until it claims the lead, then a fresh
/// ``SchedulerService`` for the term, which recovers from the store as a restart does; deposed (a lease lapsed on
/// our own clock, a renewal or a write refused), that service is thrown away and the process is standby again.
/// Nothing in memory crosses a term. One scheduler alone on its store leads at once, as before.
///
/// Runs on the poll loop's thread, which owns the endpoint (bound once, kept across terms) and the store.
final class LeaderLoop {
    private let options: SchedulerOptions
    private let shutdown: ShutdownSignal
    private let logger: Logger
    private let onReady: @Sendable () -> Void
    private let clock = SystemClock()
    private let identity: LeaderIdentity
    private let metrics = LeaderMetrics()
    private var election: LeaderElection
    /// Checked first in every write transaction of the store while a term runs.
    private let fence = LeaderFence()

    init(options: SchedulerOptions, shutdown: ShutdownSignal, logger: Logger, onReady: @escaping @Sendable () -> Void) {
        self.options = options
        self.shutdown = shutdown
        self.logger = logger
        self.onReady = onReady
        identity = LeaderIdentity(binds: options.binds, home: options.home)
        election = LeaderElection(lease: options.leaderLease, now: clock.monotonic())
    }

    /// Serves until `shutdown`: standby, leader, standby … Throws what stops the start (the store, a bind).
    func run() throws {
        try options.home.prepare()
        // Before any secret is in memory (the store's password, the CURVE key, then each term's master key): no other
        // process of its user (a worker) may read the scheduler's memory (SchedulerService does the same in-process).
        if stowage_forbid_inspection() != 0 {
            logger.warning("could not make the scheduler undumpable (prctl PR_SET_DUMPABLE)")
        }
        let store = try Store(location: options.store ?? .sqlite(path: options.home.storePath))
        store.writeFence = fence
        let endpoint = try SchedulerEndpoint(
            home: options.home, binds: options.binds, curveKey: options.curveKey, allowList: options.allowList,
            logger: logger, clock: clock)
        shutdown.notify(endpoint.waker)
        onReady()
        let standby = StandbyDesk(store: store, endpoint: endpoint, logger: logger, clock: clock)
        logger.info(
            "standby: claiming the lead",
            metadata: ["holder": "\(identity.holder)", "leaderLease": "\(options.leaderLease)s"])
        metrics.record(leads: false, term: nil)
        while !shutdown.isRequested {
            guard let term = try standby.serve(until: { claim(store) }, shutdown: shutdown) else { break }
            fence.term = term
            metrics.record(leads: true, term: term)
            let service = try SchedulerService(
                options: options, shutdown: shutdown, logger: logger, clock: clock, store: store,
                endpoint: endpoint, term: term)
            service.mayServe = { [unowned self] in mayServe() }
            try lead(service, store: store)
            endpoint.held.removeAll()
            fence.term = nil
            metrics.record(leads: false, term: nil)
        }
        if let term = election.term, mayServe() {
            try? store.releaseLeadership(term: term, holder: identity.holder)
            logger.info(
                "stopping: state is persisted; the lead is released for a standby", metadata: ["term": "\(term)"])
        } else {
            logger.info("stopping: state is persisted; the next start resumes")
        }
        endpoint.close()
    }

    /// Whether the term may go on now: the lease holds on our clock and no write was fenced. The service asks
    /// before it reads messages and before it hands out work, so a process frozen past its lease, or one whose
    /// write was just refused, does neither.
    private func mayServe() -> Bool {
        fence.refusal == nil && election.leads(now: clock.monotonic())
    }

    /// One attempt when due: the term won, or nil.
    private func claim(_ store: Store) -> Int64? {
        let sentAt = clock.monotonic()
        let due = election.handle(.tick, now: sentAt)
        guard due == [.claim] else {
            for effect in due { report(effect) }
            return nil
        }
        let event: LeaderElection.Event
        do {
            // A holder of this host whose process is gone (a kill -9 before this start) is not waited for.
            let held = try store.leader()
            let gone = held.flatMap { $0.isHeld && identity.isGone($0.holder) ? $0.holder : nil }
            if let gone {
                logger.notice(
                    "the leader's process is gone from this host: claiming at once", metadata: ["holder": "\(gone)"])
            }
            let won = try store.claimLeadership(
                holder: identity.holder, endpoints: identity.endpoints, since: clock.now(),
                leaseSeconds: election.storedLease, gone: gone)
            event = won.map { .claimed(term: $0, sentAt: sentAt) } ?? .claimRefused
        } catch {
            logger.warning("could not claim the lead", metadata: ["error": "\(error)"])
            event = .claimRefused
        }
        for effect in election.handle(event, now: clock.monotonic()) {
            if case .lead(let term) = effect {
                logger.notice("leading", metadata: ["term": "\(term)", "holder": "\(identity.holder)"])
                return term
            }
            report(effect)
        }
        return nil
    }

    /// Serves the term with `service` until it ends (or a stop is requested).
    private func lead(_ service: SchedulerService, store: Store) throws {
        try service.start()
        while !shutdown.isRequested {
            if steppedDown(store) { return }
            // A turn cut short (the lease lapsed in its wait, a fenced write) is reported as the step down below.
            _ = try service.turn()
            if steppedDown(store) { return }
        }
    }

    /// Renews when due and takes a fenced write as the end of the term; true once the term is over.
    private func steppedDown(_ store: Store) -> Bool {
        var effects = election.handle(fence.takeRefusal() == nil ? .tick : .superseded, now: clock.monotonic())
        if case .renew(let term) = effects.first {
            let sentAt = clock.monotonic()
            let event: LeaderElection.Event
            do {
                let renewed = try store.renewLeadership(
                    term: term, holder: identity.holder, leaseSeconds: election.storedLease)
                event = renewed ? .renewed(sentAt: sentAt) : .superseded
            } catch {
                logger.warning("could not renew the lead", metadata: ["term": "\(term)", "error": "\(error)"])
                event = .renewalFailed
            }
            effects = election.handle(event, now: clock.monotonic())
        }
        for effect in effects { report(effect) }
        return election.term == nil
    }

    private func report(_ effect: LeaderElection.Effect) {
        guard case .stepDown(let term, let reason) = effect else { return }
        let why =
            switch reason {
            case .leaseLapsed(let seconds): "no renewal of the lease for \(Int(seconds)) s on this scheduler's clock"
            case .superseded: "another scheduler holds the lead"
            }
        logger.warning(
            "deposed: standby again; this term's work and state are dropped",
            metadata: ["term": "\(term)", "reason": "\(why)"])
    }
}
