import ArgumentParser
import Foundation
import StowageOfflineCopy
import StowageProtocol

/// `stowctl remux TOKEN OUT.mp4|OUT.mkv`: the title's chosen renditions in one file, on the box. It finds the
/// title's folder as `stowctl play` does (the scheduler's playability verdict, which counts no play), asks
/// ``SingleFileClearance`` first (a protected title or one with license limits is refused before anything is
/// written), and runs ``Remuxer``.
struct Remux: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a completed title's video, audio languages and subtitles into one .mp4 or .mkv file.",
        discussion: """
            Without re-encoding (ffmpeg -c copy): the video, every kept audio language (tagged), and every kept \
            subtitle language (mov_text in MP4, WebVTT in MKV). An MP4 has its index first (plays while it \
            downloads); no chapters. Runs on the box (it reads the title's folder). Only a clear title without \
            license limits may become one file: a protected title, a rental, or one with a play duration, play \
            count or play time is refused (one file would outlive its license). Progress (rate, ETA) on stderr; \
            --json prints one document at the end.
            """)

    @OptionGroup var connection: ConnectionOptions
    /// TOKEN OUT, or OUT alone with `--id` (``TitleRef``'s rule, with a second positional after the token).
    @Argument(help: "TOKEN OUT.mp4|OUT.mkv (OUT's extension names the format), or OUT alone with --id.")
    var positionals: [String] = []
    @Option(help: "The title's id (as given to submit --id) instead of its token.")
    var id: String?

    /// The file to write.
    var output: String { positionals.last ?? "" }
    /// The token given, when not `--id`.
    var token: String? { positionals.count == 2 ? positionals[0] : nil }

    func validate() throws {
        guard positionals.count == (id == nil ? 2 : 1) else {
            throw ValidationError(
                id == nil ? "give the title's TOKEN and OUT.mp4|OUT.mkv" : "with --id give only OUT.mp4|OUT.mkv")
        }
        try TitleRef.check(token: token, id: id)
        guard SingleFileFormat(path: output) != nil else {
            throw ValidationError("OUT must end in .mp4 or .mkv (the format), not '\(output)'")
        }
    }

    func run() throws {
        let client = try connection.client()
        let token = try TitleRef.resolve(token: token, id: id, with: client)
        if let refusal = SingleFileClearance(status: try client.request(.status(token: token))).refusal {
            throw Failure("cannot remux \(token): \(refusal.message)", code: refusal.code)
        }
        let verdict = try client.request(.playable(token: token))
        guard verdict.playable, let directory = verdict.directory, let entry = verdict.entryPlaylist else {
            throw Failure(
                "cannot remux \(token): \(verdict.reason ?? "it cannot be played offline now")", code: .refused)
        }
        guard let format = SingleFileFormat(path: output) else { throw ValidationError("OUT must end in .mp4 or .mkv") }
        let path = URL(
            fileURLWithPath: output, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        ).standardizedFileURL.path
        var bar = RemuxBar(label: token, json: connection.json)
        let report: RemuxReport
        do {
            report = try Remuxer(directory: directory, entry: entry, format: format).write(to: path) { bar.show($0) }
        } catch {
            bar.end()
            throw Failure("cannot remux \(token): \(error.message)", code: error.code)
        }
        bar.end()
        if connection.json {
            printJSON(report)
        } else {
            print(report.path)
        }
    }
}
