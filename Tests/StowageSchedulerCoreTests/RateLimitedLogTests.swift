import StowageSchedulerCore
import Testing

@Suite("Rate-limited log")
struct RateLimitedLogTests {
    @Test func oncePerKeyAndIntervalWithinABound() {
        var log = RateLimitedLog(interval: 60, capacity: 3)
        let steps: [(key: String, now: Double, logs: Bool, why: Comment)] = [
            ("worker:a", 0, true, "first"), ("worker:a", 59.9, false, "the same key within the interval"),
            ("gateway:b", 1, true, "another key"), ("worker:a", 60, true, "the interval has passed"),
            ("worker:a", 61, false, "within the new interval"), ("c", 62, true, "a third key"),
            // A fourth key: the memory is full, so it starts again (a key may be logged early, it never grows).
            ("d", 63, true, "a fourth key"), ("worker:a", 64, true, "forgotten when the bound was reached"),
        ]
        for step in steps {
            let logged = log.shouldLog(step.key, now: step.now)
            #expect(logged == step.logs, step.why)
        }
    }
}
