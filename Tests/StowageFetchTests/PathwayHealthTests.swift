import Testing

@testable import StowageFetch

/// A worker remembers an origin that just failed and tries it after the others, for ``PathwayHealth/penalty``.
@Suite("Pathway health")
struct PathwayHealthTests {
    let urls = ["http://a.test/s.ts", "http://b.test:81/s.ts", "http://c.test/s.ts"]

    @Test func aFailedOriginGoesLastUntilItsPenaltyEndsOrItAnswers() {
        let health = PathwayHealth()
        let start = ContinuousClock.now
        #expect(health.order(urls, now: start).map(\.index) == [0, 1, 2])
        health.failed("http://a.test/other.ts", now: start)
        #expect(health.order(urls, now: start + .seconds(1)).map(\.index) == [1, 2, 0])
        #expect(health.order(urls, now: start + .seconds(1)).map(\.url).last == "http://a.test/s.ts")
        #expect(health.order(urls, now: start + PathwayHealth.penalty).map(\.index) == [0, 1, 2])
        health.failed("http://b.test:81/x", now: start)
        health.answered("http://b.test:81/y")
        #expect(health.order(urls, now: start + .seconds(1)).map(\.index) == [0, 1, 2])
    }

    @Test func aFileWithOneURLIsNeverReordered() {
        let health = PathwayHealth()
        health.failed(urls[0])
        #expect(health.order([urls[0]]).map(\.index) == [0])
    }
}
