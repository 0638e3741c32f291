import Testing

@testable import StowageGateway

/// The credential throttle as a value: failures in, decisions out, on a made-up clock (milliseconds apart).
@Suite("Throttle")
struct ThrottleTests {
    let policy = Throttle.Policy(freeFailures: 3, baseDelay: 1, maxDelay: 8, forgetAfter: 60, maxAddresses: 100)

    @Test func theFirstFailuresAreFreeThenTheWaitDoubles() {
        var throttle = Throttle(policy: policy)
        var now = 0.0
        for _ in 0..<3 {
            #expect(throttle.failed("a", now: now) == .allow)
            now += 0.001
        }
        #expect(throttle.failed("a", now: now) == .wait(seconds: 1), "the fourth failure closes the address")
        #expect(throttle.decision(for: "a", now: now + 0.5) == .wait(seconds: 1))
        #expect(throttle.decision(for: "a", now: now + 1.001) == .allow, "open again once the wait is over")
        now += 1.001
        #expect(throttle.failed("a", now: now) == .wait(seconds: 2))
        now += 2.001
        #expect(throttle.failed("a", now: now) == .wait(seconds: 4))
        now += 4.001
        #expect(throttle.failed("a", now: now) == .wait(seconds: 8))
        now += 8.001
        #expect(throttle.failed("a", now: now) == .wait(seconds: 8), "capped at maxDelay")
    }

    @Test func otherAddressesAreNotTouchedAndQuietOrSuccessForgets() {
        var throttle = Throttle(policy: policy)
        for i in 0..<10 { throttle.failed("a", now: Double(i) * 0.001) }
        #expect(throttle.decision(for: "a", now: 0.01) != .allow)
        #expect(throttle.decision(for: "b", now: 0.01) == .allow)
        #expect(throttle.failed("b", now: 0.011) == .allow, "b's first failure is free")
        #expect(throttle.decision(for: "a", now: 70) == .allow, "forgotten after a quiet minute")
        #expect(throttle.failed("a", now: 70) == .allow, "and starts afresh")
        throttle.succeeded("b")
        #expect(throttle.count == 1)
    }

    @Test func memoryIsBounded() {
        var throttle = Throttle(policy: policy)
        for i in 0..<10_000 { throttle.failed("10.0.\(i / 256).\(i % 256)", now: Double(i) * 0.001) }
        #expect(throttle.count <= policy.maxAddresses)
        #expect(throttle.decision(for: "10.0.39.15", now: 10) == .allow, "one failure of the newest: free")
        for _ in 0..<5 { throttle.failed("10.0.39.15", now: 10) }
        #expect(throttle.decision(for: "10.0.39.15", now: 10) != .allow, "still throttles once full")
    }
}
