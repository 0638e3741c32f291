import ArgumentParser
import CSystemShims
import Foundation
import Logging
import StowageIntegrity
import StowageOfflineCopy
import StowageProcess
import StowageProtocol
import StowageRuntime

/// Verifies stored files: length, container structure, SHA-256 re-read from disk; and writes the files the box
/// makes itself (a title's subtitles as `.vtt` and `.srt`, ``SubtitleWriter``; its single file, ``SingleFileWriter``)
/// just before verifying them.
struct IntegrityHandler: TaskHandler {
    let titlesRoot: URL

    func handle(_ task: TaskAssignment, progress: @escaping @Sendable (Int64) -> Void) async -> Outcome {
        guard case .verify(let work) = task.work else {
            return .failed(
                TaskFailure(
                    code: .internal, message: "integrity worker got a \(task.work.workerKind) task",
                    retryable: false))
        }
        guard let path = TitlePath.file(work.path, under: titlesRoot, for: .stored)?.path else {
            let message = "path '\(work.path.prefix(200))' is outside the titles directory"
            return .failed(TaskFailure(code: .refused, message: message, retryable: false))
        }
        var written: Int64?
        if let conversion = work.subtitles {
            // The title's folder is the path's first part (``TaskMessages`` sends `<token>/<relative>`).
            let folder = titlesRoot.appendingPathComponent(String(work.path.prefix { $0 != "/" })).path
            do {
                switch try SubtitleWriter.write(conversion, to: path, directory: folder) {
                case .written(let bytes): written = Int64(bytes)
                case .notConverted(let why):
                    var report = VerifyReport(ok: false, reason: "\(work.path): \(why)")
                    report.notConverted = why
                    return .verified(report)
                }
            } catch {
                return .failed(
                    TaskFailure(
                        code: .io, message: "cannot write \(work.path): \(error.localizedDescription)", retryable: true)
                )
            }
        }
        if let order = work.singleFile {
            let folder = titlesRoot.appendingPathComponent(String(work.path.prefix { $0 != "/" })).path
            // ffmpeg runs for as long as the copy takes to read: on a thread of its own, never the cooperative pool.
            let result = await withCheckedContinuation {
                (done: CheckedContinuation<Result<Int64, RemuxError>, Never>) in
                Thread.detachNewThread {
                    done.resume(returning: SingleFileWriter.write(order, to: path, directory: folder))
                }
            }
            switch result {
            case .success(let bytes): written = bytes
            case .failure(let error):
                let why = "\(order.format.fileName) could not be made: [\(error.code.rawValue)] \(error.message)"
                var report = VerifyReport(ok: false, reason: "\(work.path): \(why)")
                report.notConverted = why
                return .verified(report)
            }
        }
        // An encrypted file is checked inside its decrypted bytes when its key came with the task; without the key
        // (a device-only title, a key not acquired) its length and hash only.
        let opaque = work.encrypted && work.decryption == nil
        let kind: ContainerCheck.Kind =
            opaque ? .other : (ContainerCheck.Kind(rawValue: work.container.rawValue) ?? .other)
        let decryption = work.decryption.map { (key: $0.key, iv: $0.iv) }
        // Reading (and, for a scrub, pacing to its I/O budget) blocks: it runs on a thread of its own, never on
        // the cooperative pool.
        let expected = written ?? work.expectedBytes
        let verdict = await withCheckedContinuation { (done: CheckedContinuation<FileVerifier.Verdict, Never>) in
            Thread.detachNewThread {
                done.resume(
                    returning: FileVerifier.verify(
                        path: path, expectedBytes: expected, expectedSHA256: work.sha256,
                        container: kind, decryption: decryption, bytesPerSecond: work.bytesPerSecond))
            }
        }
        var report = VerifyReport(
            ok: verdict.problem == nil, reason: verdict.problem.map { "\(work.path): \($0)" },
            sha256: verdict.sha256.isEmpty ? nil : verdict.sha256)
        report.bytes = written
        return .verified(report)
    }
}

struct IntegrityWorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stowage-integrity-worker",
        abstract: "Verifies what Stowage fetched and what is at rest: length, container sanity, SHA-256.",
        discussion: """
            Stateless; run any number. Connects to the scheduler (default ipc://$STOWAGE_HOME/run/scheduler.ipc). \
            SIGTERM stops it gracefully.
            """)

    @OptionGroup var options: WorkerOptions

    func run() async throws {
        // Other processes of its user may not read its memory or its open files through /proc.
        _ = stowage_forbid_inspection()
        try await options.runWorker(kind: .integrity, defaultConcurrency: 2) { home, _, _ in
            (IntegrityHandler(titlesRoot: home.titlesRoot), {})
        }
    }
}

await IntegrityWorkerCommand.topLevelMain()
