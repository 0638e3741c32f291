import Foundation
import StowageBundle
import StowageProtocol

/// Exports and imports under way, and the last ones that ended, as the loop knows them.
///
/// Copying a title takes as long as its size calls for, so it runs on a thread of its own (the loop keeps serving
/// workers and clients meanwhile). The thread reports through a ``Mailbox`` of ``Report``s — bytes copied, the
/// total once the bundle's sizes are believed, how it ended — which the loop takes at its ticks; this table is the
/// loop's alone, as are the store, the vault and the titles folder.
struct BundleJobs {
    /// How a copy ended, for the loop to act on.
    enum Outcome: Sendable {
        /// Every file is in the bundle folder, hashed, and `bundle.json` is signed.
        case exported(id: String, manifest: BundleManifest)
        /// The bundle checked out and every file is in `staging`, with the bytes the manifest says.
        case staged(id: String, manifest: BundleManifest, staging: URL)
        /// Refused or failed; an import's staging folder is already gone.
        case failed(id: String, BundleProblem)
    }

    /// What a copying thread tells the loop, in order.
    enum Report: Sendable {
        /// `bytes` more were copied (one chunk).
        case copied(id: String, bytes: Int)
        /// The bytes the whole copy holds (an import knows it once the signature verified).
        case total(id: String, bytes: Int64)
        /// The copy ended.
        case ended(Outcome)
    }

    /// Jobs kept after they end, so a `stowctl` that polls a little late still reads the end.
    static let keptEnded = 64

    private var jobs: [String: BundleJob] = [:]
    private var ended: [String] = []

    mutating func add(_ job: BundleJob) { jobs[job.id] = job }

    func job(_ id: String) -> BundleJob? { jobs[id] }

    /// Whether an export is under way into `directory` or of `token` (one at a time each).
    func running(directory: String? = nil, token: String? = nil) -> Bool {
        jobs.values.contains { job in
            job.state == .running
                && ((directory != nil && job.directory == directory) || (token != nil && job.token == token))
        }
    }

    /// A thread's report of progress (an end is the component's to act on, see ``BundlesComponent``).
    mutating func note(_ report: Report) {
        switch report {
        case .copied(let id, let bytes): jobs[id]?.bytesDone += Int64(bytes)
        case .total(let id, let bytes): jobs[id]?.bytesTotal = bytes
        case .ended: break
        }
    }

    /// The loop's last word on a job: it ended (done or failed). Old ended jobs are forgotten.
    mutating func end(_ id: String, _ change: (inout BundleJob) -> Void) {
        guard var job = jobs[id] else { return }
        change(&job)
        jobs[id] = job
        ended.append(id)
        guard ended.count > Self.keptEnded else { return }
        for old in ended.prefix(ended.count - Self.keptEnded) { jobs[old] = nil }
        ended.removeFirst(ended.count - Self.keptEnded)
    }

    /// The name under `titles/` of an import's staging folder: on the titles' filesystem, so taking it in is one
    /// rename; the leading dot and the job id keep it apart from tokens, and `gc` leaves a running one alone.
    static func stagingName(_ id: String) -> String { ".import-\(id)" }

    /// Whether `name` under `titles/` is the staging folder of an import still running.
    func isStaging(_ name: String) -> Bool {
        guard name.hasPrefix(".import-") else { return false }
        return job(String(name.dropFirst(".import-".count)))?.state == .running
    }
}
