import Testing

@testable import StowageSchedulerCore

/// RFC 8216 §6.3.4 reload pacing and stall detection, on made-up monotonic times.
@Suite("Live reload schedule")
struct LiveReloadsTests {
    @Test func changedWaitsATargetDurationFromTheStartUnchangedHalfOfIt() {
        var r = LiveReloads()
        r.start("t", rendition: 0, target: 4, now: 100)
        #expect(r.due(now: 100).map(\.rendition) == [0])
        #expect(r.due(now: 100).isEmpty, "handed out once until its result")
        r.reloaded("t", rendition: 0, changed: true, target: 4, startedAt: 100, now: 101)
        #expect(r.due(now: 103.9).isEmpty)
        #expect(r.due(now: 104).count == 1, "a target duration after the reload began")
        r.reloaded("t", rendition: 0, changed: false, target: 4, startedAt: 104, now: 104.5)
        #expect(r.due(now: 106.4).isEmpty)
        #expect(r.due(now: 106.5).count == 1, "half a target duration after an unchanged reload")
    }

    @Test func failuresBackOffAndStop() {
        var r = LiveReloads()
        r.start("t", rendition: 0, target: 2, now: 0)
        _ = r.due(now: 0)
        #expect(r.failed("t", rendition: 0, now: 0) == 1)
        #expect(r.due(now: 0.9).isEmpty && r.due(now: 1).count == 1)
        #expect(r.failed("t", rendition: 0, now: 1) == 2)
        #expect(r.due(now: 2.9).isEmpty && r.due(now: 3).count == 1)
        #expect(LiveReloads.backoff(target: 10, failures: 9) == 30, "capped at 30 s")
        r.stop("t", rendition: 0)
        #expect(!r.isReloading("t") && r.isEmpty)
    }

    @Test func aPlaylistUnchangedForThreeTargetDurationsIsStalled() {
        var r = LiveReloads()
        r.start("t", rendition: 0, target: 2, now: 0)
        r.start("t", rendition: 1, target: 2, now: 0)
        r.reloaded("t", rendition: 0, changed: true, target: 2, startedAt: 0, now: 0)
        r.reloaded("t", rendition: 1, changed: true, target: 2, startedAt: 0, now: 4)
        #expect(r.stalledSince("t", now: 5.9) == nil)
        #expect(r.stalledSince("t", now: 6) == 0, "rendition 0 has not changed for 6 s")
        r.reloaded("t", rendition: 0, changed: true, target: 2, startedAt: 6, now: 7)
        #expect(r.stalledSince("t", now: 8) == nil)
        #expect(r.stalledSince("t", now: 10) == 4)
    }
}
