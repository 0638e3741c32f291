import ArgumentParser
import Foundation
import StowageBundle
import StowageProtocol
import StowageRuntime

/// `stowctl export TOKEN DIR` (or `--id ID DIR`): a title written to a folder as a signed bundle (docs/bundles.md).
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a completed title and a signed bundle.json to a folder, for another box to import.",
        discussion: """
            DIR must be new or empty. Without --for-box no content key leaves this box: the other box's copy waits \
            for a license acquired online. --move gives this box's license up (its copy stops being playable) so \
            a rental's plays are not doubled.
            """)
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var title: TitleThen<ExportFolder>
    @Option(name: .customLong("for-box"), help: "The receiving box's public key file (`stowctl box key`).")
    var forBox: String?
    @Flag(help: "Give this box's license up: the title stays playable on the importing box only.") var move = false

    func run() async throws {
        let key = try forBox.map { path -> String in
            do { return try BoxPublicKey.read(file: URL(fileURLWithPath: path)).fileText() } catch {
                throw Failure("--for-box: \(error)", code: .refused)
            }
        }
        let client = try connection.client()
        let (token, directory) = try title.resolve(with: client)
        let request = BundleExportRequest(token: token, directory: absolute(directory), forBox: key, move: move)
        let job = try await BundleProgress(client: client, json: connection.json).follow(
            try client.request(.exportTitle(request)))
        if connection.json { return printJSON(job) }
        print(
            "\(token): exported to \(job.directory)" + (job.moved ? "; its license moved there" : "")
                + (job.note.map { " (\($0))" } ?? ""))
    }
}

/// `stowctl import DIR`: a bundle checked and taken in, all or nothing.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a bundle folder (signature, every file) and register its title completed.",
        discussion: """
            The signer must be trusted (--trust FILE with its `stowctl box key` output, or --trust-any). A damaged, \
            missing or extra file refuses the import naming the file; nothing of a refused bundle stays. The \
            title gets a new token of this box's own, printed last. A bundle decides no path, reach, id or token \
            here, and a --move bundle is taken in once (docs/bundles.md).
            """)
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The bundle folder.") var directory: String
    @Option(help: "A public key file of a box whose bundles are trusted (repeatable).") var trust: [String] = []
    @Flag(
        name: .customLong("trust-any"),
        help: "Accept any signer whose signature verifies (its terms and plays are then anyone's word).")
    var trustAny = false

    func run() async throws {
        let keys = try trust.map { path -> String in
            do { return try BoxPublicKey.read(file: URL(fileURLWithPath: path)).fileText() } catch {
                throw Failure("--trust: \(error)", code: .refused)
            }
        }
        let client = try connection.client()
        let request = BundleImportRequest(directory: absolute(directory), trusted: keys, trustAny: trustAny)
        let job = try await BundleProgress(client: client, json: connection.json).follow(
            try client.request(.importBundle(request)))
        if connection.json { return printJSON(job) }
        if let note = job.note { printError("note: \(note)") }
        print(job.token ?? "")
    }
}

/// The absolute form of a path given on the command line: the scheduler reads and writes it, from its own
/// working directory.
private func absolute(_ path: String) -> String {
    URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        .standardizedFileURL.path
}

/// Polls an export or import until it ends, drawing its bar (bytes, rate, ETA) on standard error.
struct BundleProgress {
    let client: SchedulerClient
    let json: Bool

    /// The job's end; a failed one is thrown as the scheduler's error (exit 1), naming the file.
    func follow(_ started: BundleJob) async throws -> BundleJob {
        var job = started
        var rate = RateMeter()
        let tty = isatty(2) == 1
        var lastLine = 0.0
        while job.state == .running {
            try await Task.sleep(for: .milliseconds(200))
            job = try client.request(.bundleJob(id: job.id))
            rate.add(bytes: job.bytesDone, at: monotonic())
            guard !json, tty || monotonic() - lastLine > 2 else { continue }
            lastLine = monotonic()
            FileHandle.standardError.write(Data(((tty ? "\r\u{1B}[2K" : "") + line(job, rate: rate.rate)).utf8))
            if !tty { FileHandle.standardError.write(Data("\n".utf8)) }
        }
        if !json, tty { FileHandle.standardError.write(Data("\r\u{1B}[2K\(line(job, rate: rate.rate))\n".utf8)) }
        if job.state == .failed {
            if json { printJSON(job) }
            let error = job.error ?? TitleError(code: .internal, message: "the \(job.kind.rawValue) failed")
            throw Failure(error.message, code: error.code)
        }
        return job
    }

    /// `export  [#####.....]  45%  12.3 MB / 40.0 MB  2.1 MB/s  ETA 0:13`
    func line(_ job: BundleJob, rate: Double, width: Int = 24) -> String {
        let fraction =
            job.state == .done ? 1 : job.bytesTotal > 0 ? min(1, Double(job.bytesDone) / Double(job.bytesTotal)) : 0
        let filled = Int(TitleFormatter.whole(min(max(fraction, 0), 1) * Double(width)))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let eta =
            job.state == .done
            ? "0:00"
            : rate > 0 && job.bytesTotal > job.bytesDone
                ? TitleFormatter.duration(Double(job.bytesTotal - job.bytesDone) / rate) : "--:--"
        return "\(job.kind.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) [\(bar)] "
            + String(format: "%3d%%", Int(TitleFormatter.whole(min(max(fraction, 0), 1) * 100)))
            + "  \(TitleFormatter.bytes(job.bytesDone)) / \(TitleFormatter.bytes(job.bytesTotal))  "
            + "\(TitleFormatter.bytes(TitleFormatter.whole(rate)))/s  ETA \(eta)  \(job.state.rawValue)"
    }
}
