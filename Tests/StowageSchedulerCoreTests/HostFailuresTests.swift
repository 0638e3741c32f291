import Testing

@testable import StowageSchedulerCore

@Suite("Host failures")
struct HostFailuresTests {
    @Test func failuresInARowCountOnceTheHostFailedForAWhile() {
        var f = HostFailures()
        #expect(f.isEmpty)
        #expect(f.failed("cdn:443", now: 0) == 0)
        #expect(f.failed("cdn:443", now: 10) == 0, "a blip counts nothing")
        #expect(f.failed("cdn:443", now: HostFailures.outageSeconds) == 3)
        #expect(f.failed("other:80", now: 25) == 0, "hosts are counted apart")
        #expect(f.failed("cdn:443", now: 30) == 4)
    }

    @Test func anAnswerStartsTheCountOver() {
        var f = HostFailures()
        _ = f.failed("cdn:443", now: 0)
        _ = f.failed("cdn:443", now: 25)
        f.answered("cdn:443")
        #expect(f.isEmpty)
        #expect(f.failed("cdn:443", now: 30) == 0)
        #expect(f.failed("cdn:443", now: 49) == 0)
        #expect(f.failed("cdn:443", now: 50) == 3)
    }
}
