import Foundation
import Metrics
import StowageProtocol

/// A worker's Prometheus series (through swift-metrics): tasks by work and outcome, their duration, the
/// segment fetch latency histogram, bytes fetched and verified, tasks in flight, reconnects.
struct WorkerMetrics: Sendable {
    private let inFlight = Gauge(label: "stowage_worker_tasks_in_flight")
    private let reconnects = Counter(label: "stowage_worker_reconnects_total")
    private let fetchedBytes = Counter(label: "stowage_fetched_bytes_total")
    private let checkedBytes = Counter(label: "stowage_checked_bytes_total")
    private let segmentFetch = Metrics.Timer(label: "stowage_segment_fetch_seconds", preferredDisplayUnit: .seconds)

    func tasks(inFlight count: Int) { inFlight.record(count) }
    func reconnected() { reconnects.increment() }

    /// One task ended after `seconds` with `outcome`.
    func finished(_ work: Work, outcome: Outcome, seconds: Double) {
        let result: String
        switch outcome {
        case .failed(let failure): result = failure.code.rawValue
        default: result = "ok"
        }
        Counter(label: "stowage_tasks_total", dimensions: [("work", work.name), ("outcome", result)]).increment()
        Metrics.Timer(
            label: "stowage_task_duration_seconds", dimensions: [("work", work.name)],
            preferredDisplayUnit: .seconds
        )
        .recordNanoseconds(Int64(seconds * 1e9))
        switch outcome {
        case .fetched(let report):
            fetchedBytes.increment(by: max(0, report.bytes))
            segmentFetch.recordNanoseconds(Int64(seconds * 1e9))
        case .fetchedBatch(let batch):
            var fetched = 0
            for case .fetched(let report) in batch.results {
                fetchedBytes.increment(by: max(0, report.bytes))
                fetched += 1
            }
            if fetched > 0 { segmentFetch.recordNanoseconds(Int64(seconds * 1e9) / Int64(fetched)) }
        case .verified(let report) where report.ok:
            if case .verify(let v) = work { checkedBytes.increment(by: max(0, v.expectedBytes)) }
        default:
            break
        }
    }
}
