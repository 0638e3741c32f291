import StowageProtocol

extension SchedulerCore {
    /// The connected workers as `stowctl workers` shows them, by id: kind, where, capacity, work in hand, how long
    /// since they were heard from (milliseconds rounded) and whether they count as alive at `now` (monotonic).
    public func workersShown(now t: Double) -> [WorkerInfo] {
        workers.values.sorted { $0.id < $1.id }.map { w in
            WorkerInfo(
                id: w.id, kind: w.info.kind, host: w.info.host, pid: w.info.pid, capacity: w.info.capacity,
                tasksInHand: w.leases.count, lastSeenSecondsAgo: ((t - w.lastSeen) * 1000).rounded() / 1000,
                alive: t - w.lastSeen <= workerTimeout)
        }
    }
}
