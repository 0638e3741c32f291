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
