import ArgumentParser
import Foundation
import Logging
import StowageDASH
import StowageFetch
import StowageHLS
import StowageProtocol

struct EstimateReport: Codable, Sendable {
    var url: String
    var bytes: Int64?
    var exact: Bool
    var files: Int
    var durationSeconds: Double
    /// The plan's protection, as `status --json` will show it (null when clear).
    var protection: TitleProtection?

    /// Encodes a nil protection as JSON null so scripts see every key.
    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(url, forKey: .url)
        try c.encode(bytes, forKey: .bytes)
        try c.encode(exact, forKey: .exact)
        try c.encode(files, forKey: .files)
        try c.encode(durationSeconds, forKey: .durationSeconds)
        try c.encode(protection, forKey: .protection)
    }
}

struct Estimate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Estimate the bytes a selection of renditions takes on disk.",
        discussion: """
            Bandwidth (AVERAGE-BANDWIDTH, else BANDWIDTH) × duration; --exact sums HEAD Content-Length of every file.
            """)

    @Argument(help: "URL of the HLS master (or media) playlist, or of a DASH MPD.")
    var url: String
    @OptionGroup var select: SelectionOptions
    @Flag(help: "Sum the real sizes (one HEAD request per file).")
    var exact = false
    @Flag(help: "Machine-readable JSON output.")
    var json = false

    func run() async throws {
        let work = ResolveWork(url: url, headers: select.parsedHeaders, selection: select.selection)
        let report = try await withFetcher(source: url) { fetcher in
            let plan = try await PlaylistResolver(fetcher: fetcher).resolve(work)
            ProtectionNote.warn(plan.protection, url: work.url)
            let duration =
                plan.manifestName == DASHPlanner.manifestName
                ? DASHPlanner.duration(of: plan)
                : plan.resources.filter { $0.rendition == 0 }.reduce(0) { $0 + $1.duration }
            var bytes = plan.bytesEstimate
            if exact || bytes == nil {
                var total: Int64 = 0
                for r in plan.resources {
                    if let length = r.rangeLength {
                        total = total.saturatingAdding(length)
                    } else {
                        total = total.saturatingAdding(try await fetcher.contentLength(r.url, headers: work.headers))
                    }
                }
                bytes = total
            }
            return EstimateReport(
                url: work.url, bytes: bytes, exact: exact || plan.bytesEstimate == nil,
                files: plan.resources.count, durationSeconds: duration, protection: plan.protection)
        }
        if json {
            printJSON(report)
            return
        }
        let how = report.exact ? "exact" : "from bandwidth × duration"
        print(
            "\(TitleFormatter.bytes(report.bytes)) (\(report.bytes ?? 0) bytes, \(how)), \(report.files) files, "
                + TitleFormatter.duration(report.durationSeconds))
        if let p = report.protection { print("protected: \(p.scheme ?? "encrypted")") }
    }
}
