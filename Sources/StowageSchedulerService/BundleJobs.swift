import Foundation
import StowageBundle
import StowageProtocol
import Synchronization

/// Exports and imports under way, shared between the scheduler's loop and the threads that copy the files.
///
/// Copying a title takes as long as its size calls for, so it runs on a thread of its own (the loop keeps serving
/// workers and clients meanwhile); the thread counts bytes here for `stowctl`'s bar and posts how it ended. The
/// loop alone touches the store, the vault and the titles folder: it takes the outcomes at its next tick.
final class BundleJobs: Sendable {
    /// How a copy ended, for the loop to act on.
    enum Outcome: Sendable {
        /// Every file is in the bundle folder, hashed, and `bundle.json` is signed.
        case exported(id: String, manifest: BundleManifest)
        /// The bundle checked out and every file is in `staging`, with the bytes the manifest says.
        case staged(id: String, manifest: BundleManifest, staging: URL)
        /// Refused or failed; an import's staging folder is already gone.
        case failed(id: String, BundleProblem)
    }

    /// Jobs kept after they end, so a `stowctl` that polls a little late still reads the end.
    static let keptEnded = 64

    private let jobs = Mutex<[String: BundleJob]>([:])
    private let ended = Mutex<[String]>([])
    private let outcomes = Mutex<[Outcome]>([])

    init() {}

    func add(_ job: BundleJob) { jobs.withLock { $0[job.id] = job } }

    func job(_ id: String) -> BundleJob? { jobs.withLock { $0[id] } }

    /// Whether an export is under way into `directory` or of `token` (one at a time each).
    func running(directory: String? = nil, token: String? = nil) -> Bool {
        jobs.withLock { all in
            all.values.contains { job in
                job.state == .running
                    && ((directory != nil && job.directory == directory) || (token != nil && job.token == token))
            }
        }
    }

    /// Bytes copied by the job's thread (called once per chunk).
    func progress(_ id: String, bytes: Int) {
        jobs.withLock { $0[id]?.bytesDone += Int64(bytes) }
    }

    func update(_ id: String, _ change: (inout BundleJob) -> Void) {
        jobs.withLock { all in
            guard var job = all[id] else { return }
            change(&job)
            all[id] = job
        }
    }

    /// The loop's last word on a job: it ended (done or failed). Old ended jobs are forgotten.
    func end(_ id: String, _ change: (inout BundleJob) -> Void) {
        update(id, change)
        let forget = ended.withLock { list -> [String] in
            list.append(id)
            guard list.count > Self.keptEnded else { return [] }
            defer { list.removeFirst(list.count - Self.keptEnded) }
            return Array(list.prefix(list.count - Self.keptEnded))
        }
        if !forget.isEmpty { jobs.withLock { all in for id in forget { all[id] = nil } } }
    }

    func post(_ outcome: Outcome) { outcomes.withLock { $0.append(outcome) } }

    /// What ended since the last call (the loop only).
    func take() -> [Outcome] {
        outcomes.withLock { list in
            defer { list.removeAll() }
            return list
        }
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
