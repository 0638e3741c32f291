import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore

/// The disk: a title is admitted only if it fits beside what active titles were promised and the cushion
/// (``DiskLedger``), and a title suspended because the disk filled carries on once there is room again (every 2 s).
final class DiskComponent: SchedulerComponent, SuspensionOwner {
    let name = "disk"
    let owns = SuspendedReason.diskFull
    private let context: ComponentContext
    /// Bytes always kept free (`--disk-cushion`, `stowctl limits`: it changes live).
    private let cushion: () -> Int64
    private var due = Every(seconds: 2)

    init(context: ComponentContext, cushion: @escaping () -> Int64) {
        self.context = context
        self.cushion = cushion
    }

    func tick(now: Double) {
        if due.isDue(now: now) { resumeAfterDiskFull() }
    }

    /// An operator's resume of a title waiting for space: admitted (it waits again if the disk is still full).
    func resumeRefusal(_ title: TitleRecord) throws -> String? { nil }

    /// Bytes always kept free now (`stats`).
    var cushionBytes: Int64 { cushion() }

    /// Free bytes on the filesystem holding the titles.
    func freeBytes() -> Int64? {
        var info = statvfs()
        guard statvfs(context.home.titlesRoot.path, &info) == 0 else { return nil }
        let (bytes, overflow) = Int64(clamping: info.f_bavail).multipliedReportingOverflow(
            by: Int64(clamping: info.f_frsize))
        return overflow ? .max : bytes
    }

    /// Titles suspended because the disk was full carry on once there is room again: the cushion plus
    /// what the title still needs (at least 1 MiB, at most 8 MiB, so a large title restarts and fills up
    /// in steps rather than waiting for all of its space).
    private func resumeAfterDiskFull() {
        guard
            let waiting = try? context.store.titles(state: .suspended).filter({ $0.suspendedReason == .diskFull }),
            !waiting.isEmpty, let free = freeBytes(), let progress = try? context.store.progressByTitle()
        else { return }
        for title in waiting {
            let outstanding = max(
                0, (title.bytesEstimate ?? 0).saturatingSubtracting(progress[title.token]?.bytesVerified ?? 0))
            guard free >= cushion().saturatingAdding(min(8 << 20, max(1 << 20, outstanding))) else {
                continue
            }
            context.logger.info("space is back: resuming", metadata: ["token": "\(title.token)", "free": "\(free)"])
            try? context.desk.resume(title.token)
        }
    }

    /// Whether a title of `need` bytes fits beside what active titles were promised (the reservation ledger).
    func refusal(_ token: String, need: Int64) throws -> String? {
        guard let free = freeBytes() else { return nil }
        let progress = try context.store.progressByTitle()
        let active: Set<TitleState> = [
            .requested, .licensing, .licensed, .recording, .downloading, .verifying, .suspended,
        ]
        let others = try context.store.titles().filter { $0.token != token && active.contains($0.state) }.map {
            DiskLedger.Reservation(estimate: $0.bytesEstimate ?? 0, stored: progress[$0.token]?.bytesVerified ?? 0)
        }
        return DiskLedger(cushion: cushion()).refusal(need: need, free: free, others: others)
    }
}
