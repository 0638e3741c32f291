import Testing

@testable import StowageSchedulerCore

@Suite("Clock epoch")
struct ClockEpochTests {
    @Test func theClockMovingOnIsRecorded() {
        var c = ClockEpoch(tolerance: 300)
        #expect(c.observe(now: 1_000) == .advanced)
        #expect(c.lastSeen == 1_000)
        #expect(c.observe(now: 1_000) == .none)
        #expect(c.observe(now: 2_000) == .advanced)
        #expect(c.epoch == 0)
    }

    @Test func goingBackWithinTheToleranceChangesNothing() {
        var c = ClockEpoch(epoch: 2, lastSeen: 1_000, tolerance: 300)
        #expect(c.observe(now: 700) == .none)
        #expect(c.lastSeen == 1_000, "the latest time seen is kept")
        #expect(c.epoch == 2)
    }

    @Test func goingBackFurtherStartsANewEpochFromNow() {
        var c = ClockEpoch(epoch: 2, lastSeen: 1_000, tolerance: 300)
        #expect(c.observe(now: 699) == .rolledBack(from: 1_000))
        #expect(c.epoch == 3)
        #expect(c.lastSeen == 699)
        #expect(c.observe(now: 700) == .advanced, "the record starts over from the rolled-back time")
        #expect(c.epoch == 3)
    }
}
