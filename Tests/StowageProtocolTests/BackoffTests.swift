import StowageProtocol
import Testing

@Suite("Backoff")
struct BackoffTests {
    @Test func doublesFromTheBaseUpToTheCap() {
        let backoff = Backoff(base: 0.5, cap: 30)
        #expect((0..<9).map { backoff.delay(afterFailures: $0) } == [0.5, 1, 2, 4, 8, 16, 30, 30, 30])
    }

    @Test func negativeCountsAndHugeOnesStayInRange() {
        let backoff = Backoff(base: 2, cap: 60)
        #expect(backoff.delay(afterFailures: -3) == 2)
        #expect(backoff.delay(afterFailures: 10_000) == 60)
    }

    @Test func theFactorScalesTheCappedWait() {
        let backoff = Backoff(base: 0.5, cap: 30)
        #expect(backoff.delay(afterFailures: 0, factor: 0.75) == 0.375)
        #expect(backoff.delay(afterFailures: 20, factor: 1.25) == 37.5)
    }

    @Test func jitterIsDrawnFromItsRange() {
        let backoff = Backoff(base: 4, cap: 4, jitter: 0.75...1.25)
        for _ in 0..<100 {
            #expect((3...5).contains(backoff.jitteredDelay(afterFailures: 3)))
        }
        #expect(Backoff(base: 4, cap: 8).jitteredDelay(afterFailures: 1) == 8)
    }

    @Test func aWorkerReconnectsAfterOneToThirtyTwoSeconds() {
        #expect((0..<7).map { Backoff.reconnect.delay(afterFailures: $0) } == [1, 2, 4, 8, 16, 32, 32])
    }
}
