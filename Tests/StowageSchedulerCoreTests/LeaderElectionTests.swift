import StowageSchedulerCore
import Testing

/// The election's decisions on a clock the test moves: when to claim, renew, and step down.
@Suite struct LeaderElectionTests {
    typealias E = LeaderElection

    /// `e.handle(event, now:)` outside `#expect`, which cannot mutate.
    func take(_ e: inout E, _ event: E.Event, now: Double) -> [E.Effect] { e.handle(event, now: now) }

    @Test func aStandbyClaimsAtOnceThenEverySecondUntilItWins() {
        var e = E(lease: 10, now: 100)
        #expect(take(&e, .tick, now: 100) == [.claim])
        #expect(take(&e, .claimRefused, now: 100) == [])
        #expect(take(&e, .tick, now: 100.5) == [])
        #expect(take(&e, .tick, now: 101) == [.claim])
        #expect(take(&e, .claimed(term: 4, sentAt: 101), now: 101.1) == [.lead(term: 4)])
        #expect(e.term == 4 && e.leads(now: 101.1))
    }

    @Test func aLeaderRenewsEveryThirdOfItsLeaseAndKeepsLeading() {
        var e = E(lease: 9, now: 0)
        _ = e.handle(.claimed(term: 1, sentAt: 0), now: 0)
        #expect(take(&e, .tick, now: 2.9) == [])
        #expect(take(&e, .tick, now: 3) == [.renew(term: 1)])
        #expect(take(&e, .renewed(sentAt: 3), now: 3.2) == [])
        #expect(take(&e, .tick, now: 5.9) == [])
        #expect(take(&e, .tick, now: 6) == [.renew(term: 1)])
        #expect(take(&e, .renewed(sentAt: 6), now: 6) == [])
        // The stored lease is 8.1 s (9 s less a standby's claim interval), less the margin (0.9 s): until 13.2.
        #expect(e.leads(now: 13.1) && !e.leads(now: 13.3))
    }

    @Test func aLeaderFrozenPastItsLeaseStepsDownBeforeDoingAnything() {
        var e = E(lease: 10, now: 0)
        _ = e.handle(.claimed(term: 2, sentAt: 0), now: 0.1)
        // SIGSTOP at 1 s, resumed at 30 s: the first look at the clock ends the term.
        #expect(!e.leads(now: 30))
        #expect(take(&e, .tick, now: 30) == [.stepDown(term: 2, reason: .leaseLapsed(seconds: 30))])
        #expect(e.term == nil && e.role == .standby)
        #expect(take(&e, .tick, now: 30.5) == [])
        #expect(take(&e, .tick, now: 31) == [.claim])  // then it is a standby like any other
    }

    @Test func failedRenewalsAreRetriedUntilTheLeaseRunsOut() {
        var e = E(lease: 6, now: 0)
        _ = e.handle(.claimed(term: 3, sentAt: 0), now: 0)
        #expect(take(&e, .tick, now: 2) == [.renew(term: 3)])
        #expect(take(&e, .renewalFailed, now: 2.1) == [])
        #expect(take(&e, .tick, now: 2.4) == [])
        #expect(take(&e, .tick, now: 2.6) == [.renew(term: 3)])  // again after half a second
        #expect(take(&e, .renewalFailed, now: 5.5) == [.stepDown(term: 3, reason: .leaseLapsed(seconds: 5.5))])
    }

    @Test func aRefusedRenewalOrAFencedWriteEndsTheTermAtOnce() {
        var e = E(lease: 10, now: 0)
        _ = e.handle(.claimed(term: 5, sentAt: 0), now: 0)
        #expect(take(&e, .superseded, now: 1) == [.stepDown(term: 5, reason: .superseded)])
        #expect(!e.leads(now: 1))
        #expect(take(&e, .renewed(sentAt: 0.5), now: 1.2) == [])  // a late answer of the old term changes nothing
        #expect(e.term == nil)
    }

    @Test func aRenewalCountsFromWhenItWasSentNotAnswered() {
        var e = E(lease: 10, now: 0)
        _ = e.handle(.claimed(term: 1, sentAt: 0), now: 0)
        #expect(take(&e, .tick, now: 3.4) == [.renew(term: 1)])
        // The store took 5 s to answer: the lease (9 s stored) counts from 3.4, so it ends (less the margin) at 11.4.
        #expect(take(&e, .renewed(sentAt: 3.4), now: 8.4) == [])
        #expect(e.leads(now: 11.3) && !e.leads(now: 11.5))
    }

    /// `--leader-lease` is the takeover bound: the lease the store holds runs out a claim interval early, so a
    /// standby's next attempt after it comes within `lease` of the leader's last renewal (and so of its death).
    @Test func aStandbyTakesOverWithinTheLeaseOfTheLastRenewal() {
        for lease in [1.0, 2, 5, 10, 60] {
            let e = E(lease: lease, now: 0)
            #expect(e.storedLease + e.claimEvery <= lease)
            #expect(e.storedLease - e.margin > e.renewEvery)  // a leader renews well before it stops
        }
    }

    @Test func aClaimAnsweredAfterItsLeaseIsNotLed() {
        var e = E(lease: 2, now: 0)
        #expect(
            take(&e, .claimed(term: 9, sentAt: 0), now: 3) == [.stepDown(term: 9, reason: .leaseLapsed(seconds: 3))])
        #expect(e.term == nil)
    }
}
