import Testing

@testable import StowageSchedulerCore

@Suite("Eviction policy")
struct EvictionPolicyTests {
    let policy = EvictionPolicy(quota: 200, protect: 3_600)
    let now = 100_000.0

    func done(_ token: String, played: Double? = nil, completed: Double = 1_000) -> EvictionPolicy.Holding {
        .init(token: token, bytes: 100, evictable: true, lastPlayedAt: played, completedAt: completed)
    }

    @Test func aTitleThatFitsEvictsNothing() {
        #expect(policy.admit(need: 100, holdings: [done("a")], now: now) == .fits)
    }

    @Test func theLeastRecentlyPlayedGoesFirst() {
        let holdings = [done("a", played: 50_000), done("b", played: 20_000)]
        #expect(policy.admit(need: 100, holdings: holdings, now: now) == .evict(["b"]))
    }

    @Test func aTitleNeverPlayedCountsFromWhenItCompleted() {
        let holdings = [done("old-play", played: 30_000), done("new-unplayed", completed: 40_000)]
        #expect(policy.order(holdings, now: now).map(\.token) == ["old-play", "new-unplayed"])
    }

    @Test func aTitleKeptUntilADateIsNoVictimBeforeIt() {
        var kept = done("kept", played: 10)
        kept.keptUntil = now + 1
        let holdings = [kept, done("b", played: 20)]
        #expect(policy.admit(need: 100, holdings: holdings, now: now) == .evict(["b"]))
        #expect(policy.order(holdings, now: now + 1).map(\.token) == ["kept", "b"])
    }

    @Test func titlesTheCatalogueRemovedGoFirst() {
        var left = done("left", played: 90_000)
        left.leftCatalog = true
        let holdings = [done("a", played: 10_000), left]
        #expect(policy.admit(need: 100, holdings: holdings, now: now) == .evict(["left"]))
    }

    @Test func pinnedPlayingRecentlyPlayedAndUnfinishedTitlesAreNeverEvicted() {
        var pinned = done("pinned", played: 10)
        pinned.pinned = true
        var playing = done("playing", played: 20)
        playing.playing = true
        let recent = done("recent", played: now - 60)
        var downloading = done("downloading")
        downloading.evictable = false
        let holdings = [pinned, playing, recent, downloading]
        #expect(policy.order(holdings, now: now).isEmpty)
        guard
            case .wait(let message) = EvictionPolicy(quota: 400, protect: 3_600).admit(
                need: 100, holdings: holdings, now: now)
        else {
            Issue.record("expected a wait")
            return
        }
        #expect(message.contains("4 title(s) pinned"))
    }

    @Test func aPlayOlderThanTheProtectWindowNoLongerProtects() {
        let holdings = [done("a", played: now - 3_600), done("b", played: now - 10)]
        #expect(policy.admit(need: 100, holdings: holdings, now: now) == .evict(["a"]))
    }

    @Test func asManyVictimsAsNeededAndNoneWhenTheyWouldNotBeEnough() {
        let policy = EvictionPolicy(quota: 300, protect: 0)
        let holdings = [done("a", played: 3), done("b", played: 1), done("c", played: 2)]
        #expect(policy.admit(need: 200, holdings: holdings, now: now) == .evict(["b", "c"]))
        var pinned = holdings
        pinned[0].pinned = true
        pinned[2].pinned = true
        #expect(policy.admit(need: 250, holdings: pinned, now: now) != .evict(["b"]))
        guard case .wait = policy.admit(need: 250, holdings: pinned, now: now) else {
            Issue.record("expected a wait")
            return
        }
    }

    @Test func aTitleLargerThanTheQuotaWaitsWithoutEvictingAnything() {
        guard case .wait(let message) = policy.admit(need: 201, holdings: [done("a")], now: now) else {
            Issue.record("expected a wait")
            return
        }
        #expect(message.contains("--quota"))
    }
}

/// Sizes from playlists, peers and bundles reach these sums: a hostile one is a refusal or a wait, never a trap.
@Suite("Ledger and quota with hostile sizes")
struct HostileSizeTests {
    @Test func theDiskLedgerHoldsAtTheLargestSizes() {
        let ledger = DiskLedger(cushion: 1 << 20)
        let others = [
            DiskLedger.Reservation(estimate: .max, stored: 0), DiskLedger.Reservation(estimate: .max, stored: -5),
            DiskLedger.Reservation(estimate: .min, stored: .max),
        ]
        #expect(ledger.refusal(need: .max, free: 1 << 40, others: others)?.contains("needs about") == true)
        #expect(ledger.refusal(need: 1_000, free: 1 << 40, others: []) == nil)
    }

    @Test func theQuotaHoldsAtTheLargestSizes() {
        let policy = EvictionPolicy(quota: 1 << 30, protect: 0)
        let holdings = [
            EvictionPolicy.Holding(token: "a", bytes: .max, evictable: true, completedAt: 1),
            EvictionPolicy.Holding(token: "b", bytes: .max, evictable: true, completedAt: 2),
        ]
        #expect(policy.admit(need: 1_000, holdings: holdings, now: 10) == .evict(["a"]), "one such title frees it all")
        guard case .wait = policy.admit(need: .max, holdings: holdings, now: 10) else {
            Issue.record("a title larger than the quota waits")
            return
        }
        guard
            case .wait = policy.admit(
                need: 1_000,
                holdings: holdings.map {
                    var h = $0
                    h.pinned = true
                    return h
                },
                now: 10)
        else {
            Issue.record("pinned titles of the largest size: it waits")
            return
        }
    }
}
