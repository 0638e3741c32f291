import Foundation
import StowageBundle
import StowageLicensing
import StowageProtocol
import StowageSchedulerCore
import StowageStore

/// Bundles (docs/bundles.md): `stowctl box key`, `export`, `import` and the progress of their jobs. A request is
/// checked on the loop and answered at once with a running job; the files are copied (and hashed) on a thread of
/// the job's own, which reports through ``reports``; the loop takes the reports at its ticks and acts on the end —
/// an export's `--move` undone when it failed, an import's title taken in through ``TitleDesk/adopt(_:fill:last:)``.
///
/// The copies stay threads rather than services of the process's `ServiceGroup`: each is blocking file I/O for as
/// long as the title's size calls for (not work for the concurrency pool's two threads), it starts at a client's
/// request, not with the process, and what a process stopped mid-copy leaves is cleaned at the next start
/// (``start()``: an import's staging folder, a `--move` export's files and its license given up). Their one
/// channel to the loop is the ``Mailbox``.
final class BundlesComponent: SchedulerComponent {
    let name = "bundles"
    let context: ComponentContext
    /// Unwraps the content keys an export seals for another box, wraps those an import opens.
    let vault: KeyVault
    /// This box's bundle identity (`box.key`): signs exports, opens keys sealed for it.
    let box: BoxIdentity
    /// `--allow-hosts`: a bundle's source URL keeps to submit's rule.
    let allowedHosts: HostAllowList?
    /// Who else holds title ids an import may not take (the catalogue).
    let claimants: () -> [any TitleIDClaimant]
    /// The jobs, the loop's alone.
    var jobs = BundleJobs()
    /// What the copying threads report, taken at each tick.
    let reports = Mailbox<BundleJobs.Report>()

    init(
        context: ComponentContext, vault: KeyVault, box: BoxIdentity, allowedHosts: HostAllowList?,
        claimants: @escaping () -> [any TitleIDClaimant]
    ) {
        self.context = context
        self.vault = vault
        self.box = box
        self.allowedHosts = allowedHosts
        self.claimants = claimants
    }

    func start() throws {
        removeStaleStaging()
        undoInterruptedMoves()
    }

    func tick(now: Double) { takeReports() }

    func answer(_ request: ComponentRequest) throws -> ReplyBody? {
        switch request.operation {
        case .boxKey:
            return .boxKey(box.publicKey.fileText())
        case .exportTitle(let export):
            return .bundleJob(try startExport(export))
        case .importBundle(let bundle):
            return .bundleJob(try startImport(bundle))
        case .bundleJob(let id):
            guard let job = jobs.job(id) else {
                throw TitleError(
                    code: .notFound, message: "no export or import '\(id.prefix(64))' (the scheduler restarted?)")
            }
            return .bundleJob(job)
        default:
            return nil
        }
    }

    /// Whether `name` under `titles/` is the staging folder of an import still running (`gc` leaves it alone).
    func isStaging(_ name: String) -> Bool { jobs.isStaging(name) }

    /// Every tick: the threads' progress, and the ends of exports and imports whose copying finished.
    private func takeReports() {
        for report in reports.take() {
            guard case .ended(let outcome) = report else {
                jobs.note(report)
                continue
            }
            switch outcome {
            case .exported(let id, _):
                finishExport(id, problem: nil)
            case .staged(let id, let manifest, let staging):
                registerImport(id, manifest: manifest, staging: staging)
            case .failed(let id, let problem):
                if jobs.job(id)?.kind == .export {
                    finishExport(id, problem: problem)
                } else {
                    context.logger.warning("import refused", metadata: ["job": "\(id)", "problem": "\(problem)"])
                    end(id, problem: problem)
                }
            }
        }
    }

    /// Ends job `id` as failed with `problem`.
    func end(_ id: String, problem: BundleProblem) {
        jobs.end(id) { job in
            job.state = .failed
            job.error = Self.titleError(problem)
            job.problem = BundleJob.Problem(code: problem.code.rawValue, file: problem.file)
        }
    }

    /// Start-up: an import the previous process was checking left its staging folder; no job of this process owns
    /// it, and the store never knew its title.
    private func removeStaleStaging() {
        let root = context.home.titlesRoot
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        where name.hasPrefix(".import-") {
            try? FileManager.default.removeItem(at: root.appendingPathComponent(name))
            context.logger.info("removed an interrupted import's staging folder", metadata: ["folder": "\(name)"])
        }
    }

    /// A bundle problem from whatever a copy threw.
    static func bundleProblem(_ error: any Error, file: String) -> BundleProblem {
        if let problem = error as? BundleProblem { return problem }
        return BundleProblem(.io, file: file, error.localizedDescription)
    }

    /// The error `stowctl` shows for a bundle problem: files that are not as listed are an `integrity` failure,
    /// a signature or trust or key refusal is `refused`, a read or write that failed is `io`. The message names the
    /// file.
    static func titleError(_ problem: BundleProblem) -> TitleError {
        let code: ErrorCode
        switch problem.code {
        case .missing, .extra, .size, .hash: code = .integrity
        case .signature, .untrusted, .malformed, .keys, .limit, .path, .taken, .replayed: code = .refused
        case .io: code = .io
        }
        return TitleError(code: code, message: problem.description)
    }
}
