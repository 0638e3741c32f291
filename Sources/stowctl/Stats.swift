import ArgumentParser
import Foundation
import StowageProtocol

/// `stowctl stats`: the pipeline's figures (what the scheduler's /metrics exports) in one screen.
struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Titles by state, queues, leases, workers, throughput, ETA, disk and quota, and retries.",
        discussion: """
            The same figures the scheduler exports at /metrics (stowage-scheduler --metrics PORT), read over ZeroMQ.
            """)

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        let s = try connection.request(.stats)
        if connection.json { return printJSON(s) }
        func pairs(_ d: [String: Int]) -> String {
            d.isEmpty ? "-" : d.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        print("titles:      \(pairs(s.titles.filter { $0.value > 0 }))")
        print("queued:      \(pairs(s.queued))   leases out: \(s.leases)")
        print("workers:     \(pairs(s.workers))")
        print(
            "throughput:  \(TitleFormatter.bytes(TitleFormatter.whole(s.bytesPerSecond)))/s   "
                + "verified since start: \(TitleFormatter.bytes(s.verifiedBytes))")
        let eta = s.etaSeconds.map(TitleFormatter.duration) ?? "--:--"
        print("remaining:   \(TitleFormatter.bytes(s.bytesRemaining))   ETA \(eta)")
        if let d = s.disk {
            let quota = d.quotaBytes.map { TitleFormatter.bytes($0) } ?? "none"
            print(
                "disk:        \(TitleFormatter.bytes(d.usedBytes)) held by titles, "
                    + "\(d.freeBytes.map { TitleFormatter.bytes($0) } ?? "?") free, quota \(quota), "
                    + "cushion \(TitleFormatter.bytes(d.cushionBytes))")
        }
        print("retries:     \(pairs(s.retries))")
        print(
            "dropped:     \(s.droppedMessages) malformed message(s)   "
                + "uptime \(TitleFormatter.duration(s.uptimeSeconds))")
        if let leader = s.leader {
            print("leader:      \(Self.leaderLine(leader, leads: s.leads))")
        }
        if let grace = s.evictionGraceSeconds, grace > 0 {
            print("evictions:   held \(Int(grace.rounded(.up))) s more (start-up grace: plays under way report first)")
        }
    }

    /// `HOLDER, term N since DATE (this scheduler) at ENDPOINTS`: the leader in one line (`stats`, `workers`).
    static func leaderLine(_ leader: LeaderFigures, leads: Bool?) -> String {
        let since = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: leader.since))
        let endpoints = leader.endpoints.isEmpty ? "" : " at \(leader.endpoints.joined(separator: ", "))"
        return "\(leader.holder), term \(leader.term) since \(since)\(leads == true ? " (this scheduler)" : "")"
            + endpoints
    }
}
