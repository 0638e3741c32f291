import ArgumentParser
import Foundation
import Logging
import StowageDASH
import StowageFetch
import StowageHLS
import StowageProcess
import StowageProtocol

struct Estimate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Estimate the bytes a selection of renditions takes on disk.",
        discussion: """
            Bandwidth (AVERAGE-BANDWIDTH, else BANDWIDTH) × duration; --exact sums HEAD Content-Length of every file.
            A live stream (a dynamic MPD) is estimated per hour of recording, from bandwidth (--exact is refused).
            """)

    @Argument(help: "URL of the HLS master (or media) playlist, or of a DASH MPD.")
    var url: String
    @OptionGroup var select: SelectionOptions
    @Option(
        help: ArgumentHelp(
            "Estimate only a clip, as `submit --range` would keep it (START-END).", valueName: "START-END"),
        transform: ClipRange.parsing)
    var range: ClipRange?
    @Flag(help: "Sum the real sizes (one HEAD request per file).")
    var exact = false
    @Flag(help: "Machine-readable JSON output.")
    var json = false

    func run() async throws {
        var work = ResolveWork(url: url, headers: select.parsedHeaders, selection: select.selection)
        work.range = range
        let report = try await withFetcher(source: url) { fetcher in
            try await TitleProbe.estimate(work, exact: exact, fetcher: fetcher)
        }
        ProtectionNote.warn(report.protection, url: work.url)
        if json {
            printJSON(report)
            return
        }
        let how = report.exact ? "exact" : "from bandwidth × duration"
        // A live stream has no length: its figures are a rate, and the line says so first.
        let per = report.perHourOfRecording == true ? "live stream, per hour of recording: " : ""
        print(
            "\(per)\(TitleFormatter.bytes(report.bytes)) (\(report.bytes ?? 0) bytes, \(how)), "
                + "\(report.files) files, \(TitleFormatter.duration(report.durationSeconds))")
        if let p = report.protection { print("protected: \(p.scheme ?? "encrypted")") }
        if let r = report.range { print("clip: \(r) s (on segment boundaries)") }
    }
}
