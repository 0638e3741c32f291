import Foundation
import StowageProtocol
import Testing

/// The pace rule of another party's answers (a peer, the catalogue URL, a notification receiver): a drip is cut once
/// a window shows it, a steady answer never, and no answer outlives its total; the watchdog cuts a request that
/// receives nothing at all, on the monotonic clock.
@Suite struct BodyPaceTests {
    static let limits = BodyLimits(minRate: 1_000, window: 10, total: 60)

    @Test func aDripIsCutOnceAWindowShowsItsRateAndTheReasonNamesTheHostAndTheLimit() {
        var pace = BodyPace(Self.limits, host: "box-a.test")
        // One byte every 2 s (the attacker's drip, faster).
        var cut: SlowAnswer?
        var at = 0.0
        while cut == nil, at < 60 {
            at += 1
            cut = pace.observe(at: at, bytes: Int(at / 2))
        }
        #expect(cut?.kind == .tooSlow)
        #expect(at == 10, "cut as soon as one window passed, not later")
        #expect(cut?.message.contains("box-a.test") == true && cut?.message.contains("1000 bytes/s") == true)
    }

    @Test func aSteadyAnswerIsNeverCutAndAShortStallInsideTheWindowIsForgiven() {
        var pace = BodyPace(Self.limits, host: "h")
        var bytes = 0
        for second in 1...59 {
            // 5 s of silence in the middle, then the answer catches up: over any 10 s it still averages enough.
            if !(20...24).contains(second) { bytes += 3_000 }
            #expect(pace.observe(at: Double(second), bytes: bytes) == nil, "at \(second) s")
        }
    }

    @Test func noAnswerOutlivesItsTotalHoweverFast() {
        var pace = BodyPace(Self.limits, host: "h")
        #expect(pace.observe(at: 59.9, bytes: 10_000_000) == nil)
        #expect(pace.observe(at: 60, bytes: 20_000_000)?.kind == .tooLong)
    }

    @Test func theWatchdogCutsARequestThatReceivesNothingAndLetsAFastOneThrough() async throws {
        let limits = BodyLimits(minRate: 100, window: 0.4, total: 30)
        let clock = ContinuousClock()
        let start = clock.now
        await #expect(throws: SlowAnswer.self) {
            try await BodyWatch.run(limits, host: "stuck.test") { _ in
                try await Task.sleep(for: .seconds(600))  // a head and then nothing: the request never returns
                return 1
            }
        }
        // Cut long before the request's own 600 s (about one window; the bound leaves room for a machine whose
        // cooperative threads other tests keep busy: 61 s was seen under a parallel build).
        #expect(clock.now - start < .seconds(300), "cut by the watchdog, not ended by the request's 600 s")
        let value = try await BodyWatch.run(limits, host: "fast.test") { watch in
            watch.count(1_000)
            return 7
        }
        #expect(value == 7)
    }
}
