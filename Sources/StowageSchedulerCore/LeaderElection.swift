/// When a scheduler sharing its store claims the lead, renews it, and must consider itself deposed: a pure value
/// on the scheduler's monotonic clock (times are seconds from any fixed origin), fed what happened and answering
/// what to do. The interpreter (the scheduler's leader loop) runs the store statements and reports their outcome.
///
/// Safety rests on two clocks agreeing only on the length of a second: the store's lease of `lease` seconds starts
/// at the database's time when the claim or renewal ran, which is never earlier than the moment we sent it; so a
/// leader that counts its lease from the sending, on its own monotonic clock, and stops `margin` earlier, stops
/// before any standby may claim. A process frozen (`SIGSTOP`) past its lease finds it expired on resuming and
/// hands out nothing; anything it still tries to write meets the store's fence.
public struct LeaderElection: Sendable, Equatable {
    /// What the interpreter does next.
    public enum Effect: Sendable, Equatable {
        /// Try to claim the lead (a standby).
        case claim
        /// Renew the lease of this term (a leader).
        case renew(term: Int64)
        /// Start leading this term: recover from the store as a restart does.
        case lead(term: Int64)
        /// Stop leading at once: hand out nothing more, throw the term's state away, go back to standby.
        case stepDown(term: Int64, reason: StepDown)
    }

    /// Why a leader stops leading.
    public enum StepDown: Sendable, Equatable {
        /// No renewal succeeded within the lease on our own clock (frozen, the store unreachable or slow).
        case leaseLapsed(seconds: Double)
        /// The store says another scheduler holds the lead (a refused renewal or a fenced write).
        case superseded
    }

    /// What happened.
    public enum Event: Sendable, Equatable {
        /// Time passed (each turn of the loop).
        case tick
        /// A claim sent at `sentAt` won `term`.
        case claimed(term: Int64, sentAt: Double)
        /// A claim found the lead held by another (or the store failed): try again later.
        case claimRefused
        /// A renewal sent at `sentAt` extended our lease.
        case renewed(sentAt: Double)
        /// The store refused our renewal (the term is no longer ours) or fenced a write.
        case superseded
        /// A renewal could not reach the store: try again soon; the lease keeps running out meanwhile.
        case renewalFailed
    }

    public enum Role: Sendable, Equatable {
        case standby
        /// Leading `term`, on a lease renewed last by a statement sent at `renewedAt`.
        case leader(term: Int64, renewedAt: Double)
    }

    /// How long a standby may take over after the leader died or was cut off, seconds (`--leader-lease`).
    public let lease: Double
    public private(set) var role: Role = .standby
    /// When the next claim or renewal is due.
    public private(set) var nextAttempt: Double

    public init(lease: Double, now: Double) {
        self.lease = lease
        nextAttempt = now
    }

    /// A leader renews this often: two renewals may fail before the lease runs out.
    public var renewEvery: Double { lease / 3 }
    /// A standby tries to claim this often, so it takes over soon after a lease runs out.
    public var claimEvery: Double { min(1, lease / 10) }
    /// A leader stops this much before its lease would end on the store's clock (clock rates, scheduling).
    public var margin: Double { min(1, lease / 10) }
    /// The lease written to the store: `lease` less a standby's claim interval, so that a standby's next attempt
    /// after the written lease ran out comes within `lease` of the leader's last renewal (its death at the latest).
    public var storedLease: Double { lease - claimEvery }

    /// Whether we may act as leader now: hand out work, answer clients. False the moment the lease lapses on our
    /// own clock, even before the loop reports it.
    public func leads(now: Double) -> Bool {
        guard case .leader(_, let renewedAt) = role else { return false }
        return now - renewedAt < storedLease - margin
    }

    /// The term we lead, if any (whether or not the lease lapsed since).
    public var term: Int64? {
        if case .leader(let term, _) = role { term } else { nil }
    }

    /// Takes `event` at `now`; answers what to do, in order.
    public mutating func handle(_ event: Event, now: Double) -> [Effect] {
        switch (role, event) {
        case (.standby, .claimed(let term, let sentAt)):
            role = .leader(term: term, renewedAt: sentAt)
            nextAttempt = sentAt + renewEvery
            // A claim that took longer than the lease itself won a term already lapsed for us.
            guard leads(now: now) else { return stepDown(term: term, .leaseLapsed(seconds: now - sentAt), now: now) }
            return [.lead(term: term)]
        case (.standby, .claimRefused), (.standby, .renewalFailed):
            nextAttempt = now + claimEvery
            return []
        case (.leader(let term, let renewedAt), .renewed(let sentAt)):
            let renewed = max(renewedAt, sentAt)
            role = .leader(term: term, renewedAt: renewed)
            nextAttempt = renewed + renewEvery
            return lapsed(now: now)
        case (.leader(let term, _), .superseded):
            return stepDown(term: term, .superseded, now: now)
        case (.leader, .renewalFailed):
            nextAttempt = now + min(renewEvery, 0.5)
            return lapsed(now: now)
        case (.standby, .tick):
            return now >= nextAttempt ? [.claim] : []
        case (.leader(let term, _), .tick):
            let stop = lapsed(now: now)
            guard stop.isEmpty else { return stop }
            return now >= nextAttempt ? [.renew(term: term)] : []
        default:
            // A stale report (a renewal answered after we stepped down, a claim while leading): nothing to do.
            return []
        }
    }

    private mutating func lapsed(now: Double) -> [Effect] {
        guard case .leader(let term, let renewedAt) = role, !leads(now: now) else { return [] }
        return stepDown(term: term, .leaseLapsed(seconds: now - renewedAt), now: now)
    }

    private mutating func stepDown(term: Int64, _ reason: StepDown, now: Double) -> [Effect] {
        role = .standby
        nextAttempt = now + claimEvery
        return [.stepDown(term: term, reason: reason)]
    }
}
