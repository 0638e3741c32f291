import Metrics

/// `stowage_leader` (1 while this scheduler leads, else 0) and `stowage_leader_term` (the term it leads; 0 as
/// standby).
struct LeaderMetrics {
    private let leader = Gauge(label: "stowage_leader")
    private let term = Gauge(label: "stowage_leader_term")

    func record(leads: Bool, term leading: Int64?) {
        leader.record(leads ? 1 : 0)
        term.record(leading ?? 0)
    }
}
