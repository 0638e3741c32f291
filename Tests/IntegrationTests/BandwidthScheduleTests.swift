import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// The bandwidth schedule against the real processes: the scheduler's wall clock (libfaketime) crosses a boundary
/// of `--bandwidth-schedule` mid-title, and the rate the origin serves follows it on both sides.
@Suite("Bandwidth schedule", .serialized)
struct BandwidthScheduleIntegrationTests {
    /// Bytes per second the origin served from `from` to `to` (real time): one connection fetches one file after
    /// another, so the bytes of the files it began in the interval, all but the last, over the time from the first
    /// start to the last.
    static func rate(_ log: [(at: Double, bytes: Double)], from: Double, to: Double) -> Double? {
        let inside = log.filter { $0.at >= from && $0.at < to }
        guard inside.count >= 3, let first = inside.first, let last = inside.last, last.at > first.at else {
            return nil
        }
        return inside.dropLast().map(\.bytes).reduce(0, +) / (last.at - first.at)
    }

    @Test func theRateAtTheOriginFollowsTheScheduleAcrossABoundary() throws {
        let h = try Harness(name: "rate-schedule")
        try h.makeSample(seconds: 30)
        try h.startOrigin()
        // At a whole minute about two hours from now (local time) the cap goes from 300,000 to 600,000 bytes/s.
        let boundary = (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 + 7_260
        let schedule =
            "\(FillWindowIntegrationTests.local(boundary))-\(FillWindowIntegrationTests.local(boundary + 1_800))"
            + "=600000,*=300000"
        // The processes start an hour before the boundary; once the worker has its share the clock is stepped to
        // 10 s before it, so a slow start cannot eat the stretch before the boundary that the test measures.
        let (clock, fake) = try h.fakeClock("scheduler")
        _ = try FillWindowIntegrationTests.setClock(clock, reads: boundary - 3_600)
        try h.startScheduler(
            environment: fake.merging([
                "STOWAGE_BANDWIDTH_SCHEDULE": schedule, "TZ": FillWindowIntegrationTests.zone,
                "STOWAGE_PER_TITLE": "1",
            ]) { $1 })
        try h.startWorker("license")
        try h.startWorker("download")
        try h.startWorker("integrity")
        try h.waitUntil(timeout: 20, "three workers registered") { (try? h.workers().count) == 3 }
        try h.waitUntil(timeout: 10, "the download worker to receive its share") {
            h.log("download").contains("bytesPerSecond=300000")
        }
        let boundaryReally = try FillWindowIntegrationTests.setClock(clock, reads: boundary - 10, at: boundary)
        let token = try h.submit("master.m3u8", ["--bitrate", "2000000"])
        let final = try h.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(h.log("download").contains("bytesPerSecond=600000"), "the new share reached the worker")

        let media = h.originLog().filter { $0.count > 4 && $0[2].hasSuffix(".ts") }.map {
            (at: Double($0[0]) ?? 0, bytes: Double($0[4]) ?? 0)
        }
        let start = try #require(media.first?.at)
        let end = try #require(media.last?.at)
        #expect(start < boundaryReally - 3 && end > boundaryReally + 3, "the title spans the boundary")
        // A change of rate empties the worker's bucket; a second on each side is left out.
        let before = try #require(Self.rate(media, from: start + 1, to: boundaryReally), "files before the boundary")
        let after = try #require(Self.rate(media, from: boundaryReally + 1.5, to: end + 1), "files after it")
        print("[measure] before the boundary \(Int(before)) B/s (cap 300000), after \(Int(after)) B/s (cap 600000)")
        #expect(abs(before / 300_000 - 1) < 0.2, "before: \(before) B/s")
        #expect(abs(after / 600_000 - 1) < 0.2, "after: \(after) B/s")
    }
}
