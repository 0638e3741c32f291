import Foundation
import Metrics
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore

/// The scheduler's Prometheus series (through swift-metrics), refreshed once a second by the poll loop:
/// titles by state, work queued per kind, leases, workers by kind and liveness; plus counters bumped as
/// things happen (bytes verified, retries by reason, malformed messages dropped).
final class SchedulerMetrics {
    private var titleGauges: [TitleState: Gauge] = [:]
    private var queueGauges: [String: Gauge] = [:]
    private var workerGauges: [String: Gauge] = [:]
    private var retryCounters: [String: Counter] = [:]
    private let leases = Gauge(label: "stowage_leases")
    private let verifiedBytes = Counter(label: "stowage_verified_bytes_total")
    private let verifiedFiles = Counter(label: "stowage_verified_files_total")
    private let dropped = Counter(label: "stowage_dropped_messages_total")
    private let refusedConnections = Counter(label: "stowage_refused_connections_total")
    /// What `stats` reports beside the gauges.
    private(set) var verifiedBytesTotal: Int64 = 0
    private(set) var retriesByReason: [String: Int] = [:]
    /// Messages dropped because they were malformed.
    private(set) var droppedMessages = 0
    /// When the scheduler started (monotonic).
    let startedAt: Double
    private var throughputSamples: [(at: Double, bytes: Int64)] = []

    private static let states: [TitleState] = [
        .requested, .licensing, .licensed, .recording, .downloading, .verifying, .suspended, .completed, .canceled,
        .failed,
    ]

    func refresh(titles: [TitleState: Int], core: SchedulerCore, now: Double) {
        for state in Self.states {
            let gauge = titleGauges[state] ?? Gauge(label: "stowage_titles", dimensions: [("state", state.rawValue)])
            titleGauges[state] = gauge
            gauge.record(titles[state] ?? 0)
        }
        for (kind, depth) in core.queueDepths {
            let gauge = queueGauges[kind] ?? Gauge(label: "stowage_queue_depth", dimensions: [("work", kind)])
            queueGauges[kind] = gauge
            gauge.record(depth)
        }
        for (kind, count) in Self.workersByKind(core) {
            let gauge = workerGauges[kind] ?? Gauge(label: "stowage_workers_alive", dimensions: [("kind", kind)])
            workerGauges[kind] = gauge
            gauge.record(count)
        }
        leases.record(core.leases.count)
        throughputSamples.append((now, verifiedBytesTotal))
        throughputSamples.removeAll { now - $0.at > 10 }
    }

    /// Live workers per kind (every kind listed, 0 when none).
    static func workersByKind(_ core: SchedulerCore) -> [String: Int] {
        var workers: [String: Int] = [:]
        for kind in WorkerKind.allCases { workers[kind.rawValue] = 0 }
        for worker in core.workers.values { workers[worker.info.kind.rawValue, default: 0] += 1 }
        return workers
    }

    /// Bytes per second verified over the last ~10 s.
    var throughput: Double {
        guard let first = throughputSamples.first, let last = throughputSamples.last, last.at > first.at else {
            return 0
        }
        return Double(last.bytes - first.bytes) / (last.at - first.at)
    }

    func verified(bytes: Int64) {
        verifiedBytes.increment(by: max(0, bytes))
        verifiedFiles.increment()
        verifiedBytesTotal += max(0, bytes)
    }

    func retried(_ code: ErrorCode) {
        let counter =
            retryCounters[code.rawValue]
            ?? Counter(label: "stowage_retries_total", dimensions: [("reason", code.rawValue)])
        retryCounters[code.rawValue] = counter
        counter.increment()
        retriesByReason[code.rawValue, default: 0] += 1
    }

    init(startedAt: Double) { self.startedAt = startedAt }

    func droppedMessage() {
        droppedMessages += 1
        dropped.increment()
    }
    func refusedConnection() { refusedConnections.increment() }
}

extension SchedulerService {
    /// `stats`: the figures of `/metrics`, plus the work remaining and its ETA at the current rate.
    func stats() throws -> SchedulerStats {
        let counts = try store.titleCounts()
        let remaining = try store.bytesRemaining(states: [.requested, .licensing, .recording, .downloading, .verifying])
        let rate = metrics.throughput
        var stats = SchedulerStats(
            titles: Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) }),
            queued: core.queueDepths, leases: core.leases.count, workers: SchedulerMetrics.workersByKind(core),
            verifiedBytes: metrics.verifiedBytesTotal, bytesPerSecond: rate, bytesRemaining: remaining,
            etaSeconds: rate > 0 && remaining > 0 ? Double(remaining) / rate : nil,
            retries: metrics.retriesByReason, droppedMessages: metrics.droppedMessages,
            uptimeSeconds: clock.monotonic() - metrics.startedAt)
        stats.evictionGraceSeconds = components.first(PlaysComponent.self)?.blindFor
        let usage = try quota?.usage()
        stats.disk = DiskFigures(
            usedBytes: usage?.used ?? 0, freeBytes: disk?.freeBytes(), quotaBytes: usage?.quota,
            cushionBytes: disk?.cushionBytes ?? 0)
        if let lease = try store.leader(), lease.term > 0 {
            stats.leader = LeaderFigures(
                holder: lease.holder, term: lease.term, since: lease.since, endpoints: lease.endpoints)
            stats.leads = term == lease.term
        }
        return stats
    }
}
