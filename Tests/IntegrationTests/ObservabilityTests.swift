import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Prometheus `/metrics` on the scheduler and a worker, `stowctl stats`, and JSON logs.
@Suite("Observability", .serialized)
struct ObservabilityTests {
    func scrape(_ port: Int) throws -> String { try Prometheus.scrape(port) }

    func value(_ text: String, _ series: String) -> Double? { Prometheus.value(text, series) }

    @Test func metricsMoveDuringADownload() throws {
        let h = try Harness(name: "metrics")
        try h.makeSample(seconds: 8)
        try h.startOrigin(latencyMilliseconds: 300)
        let schedulerPort = try Harness.freePort(), workerPort = try Harness.freePort()
        try h.startScheduler(["--metrics", "\(schedulerPort)", "--per-title", "2"])
        try h.startWorker("license")
        try h.spawn("download", "stowage-download-worker", ["--metrics", "127.0.0.1:\(workerPort)"])
        try h.spawn("integrity", "stowage-integrity-worker", ["--log-format", "json"])
        try h.waitUntil(timeout: 20, "three workers") { (try? h.workers().count) == 3 }
        let idle = try scrape(workerPort)
        #expect((value(idle, "stowage_fetched_bytes_total") ?? 0) == 0)

        let token = try h.submit("master.m3u8")
        var during = ""
        try h.waitUntil(timeout: 60, "bytes fetched while the title downloads") {
            during = try scrape(schedulerPort)
            let fetched = value(try scrape(workerPort), "stowage_fetched_bytes_total") ?? 0
            return fetched > 0 && value(during, #"stowage_titles{state="downloading"}"#) == 1
        }
        #expect(value(during, #"stowage_workers_alive{kind="download"}"#) == 1)
        #expect(during.contains(#"stowage_queue_depth{work="fetch"}"#))
        let midWorker = try scrape(workerPort)
        #expect(midWorker.contains("stowage_segment_fetch_seconds_bucket"), "the fetch latency histogram")

        let final = try h.waitForFinal(token)
        #expect(final.state == .completed)
        try h.waitUntil(timeout: 5, "the gauges to catch up") {
            value(try scrape(schedulerPort), #"stowage_titles{state="completed"}"#) == 1
        }
        let after = try scrape(schedulerPort), afterWorker = try scrape(workerPort)
        #expect(value(after, #"stowage_titles{state="downloading"}"#) == 0)
        #expect((value(after, "stowage_verified_bytes_total") ?? 0) >= Double(final.bytesDownloaded))
        #expect((value(afterWorker, "stowage_fetched_bytes_total") ?? 0) >= Double(final.bytesDownloaded))
        #expect(
            (value(afterWorker, "stowage_fetched_bytes_total") ?? 0)
                > (value(midWorker, "stowage_fetched_bytes_total") ?? 0))
        #expect(
            (value(afterWorker, #"stowage_tasks_total{work="fetch",outcome="ok"}"#) ?? 0)
                >= Double(final.segmentsTotal - 2))

        // stowctl stats reads the same figures.
        let (code, json) = try h.stowctl(["stats", "--json"])
        #expect(code == 0)
        let stats = try JSONDecoder().decode(SchedulerStats.self, from: Data(json.utf8))
        #expect(
            stats.titles["completed"] == 1 && stats.workers["download"] == 1
                && stats.verifiedBytes >= final.bytesDownloaded)

        // JSON logs: one object per line, with the task and token ids.
        let lines = h.log("integrity").split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
            #expect(object?["message"] != nil && object?["level"] != nil, "\(line)")
        }
    }
}
