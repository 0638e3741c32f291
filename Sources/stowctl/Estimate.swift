import ArgumentParser
import Foundation
import Logging
import StowageFetch
import StowageHLS
import StowageProtocol

struct EstimateReport: Codable, Sendable {
    var url: String
    var bytes: Int64?
    var exact: Bool
    var files: Int
    var durationSeconds: Double
}

struct Estimate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Estimate the bytes a selection of renditions takes on disk.",
        discussion: "Bandwidth (AVERAGE-BANDWIDTH, else BANDWIDTH) × duration; --exact sums HEAD Content-Length of every file.")

    @Argument(help: "URL of the HLS master (or media) playlist.")
    var url: String
    @Option(help: "Highest variant bandwidth (bits/s) to accept.")
    var bitrate: Int?
    @Option(name: .customLong("max-height"), help: "Ignore variants taller than this many pixels.")
    var maxHeight: Int?
    @Option(help: "Audio languages, comma-separated (default: the DEFAULT rendition).")
    var audio: String?
    @Option(help: "Subtitle languages, comma-separated, or 'all' or 'none'.")
    var subtitles: String?
    @Option(name: .customLong("header"), help: "An HTTP header, 'Name: value' (repeatable).")
    var headers: [String] = []
    @Flag(help: "Sum the real sizes (one HEAD request per file).")
    var exact = false
    @Flag(help: "Machine-readable JSON output.")
    var json = false

    func run() throws {
        let list = { (s: String?) in s.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } }
        let work = ResolveWork(url: url, headers: headers.compactMap(Header.init(parsing:)),
                               selection: Selection(bitrate: bitrate, maxHeight: maxHeight, audio: list(audio), subtitles: list(subtitles)))
        let exact = self.exact
        let report = try blocking { () async throws -> EstimateReport in
            let fetcher = HTTPFetcher(logger: Logger(label: "stowctl"))
            defer { fetcher.syncShutdownDetached() }
            let plan = try await PlaylistResolver(fetcher: fetcher).resolve(work)
            let duration = plan.resources.filter { $0.rendition == 0 }.reduce(0) { $0 + $1.duration }
            var bytes = plan.bytesEstimate
            if exact || bytes == nil {
                var total: Int64 = 0
                for r in plan.resources {
                    if let length = r.rangeLength { total += length } else { total += try await fetcher.contentLength(r.url, headers: work.headers) }
                }
                bytes = total
            }
            return EstimateReport(url: work.url, bytes: bytes, exact: exact || plan.bytesEstimate == nil, files: plan.resources.count, durationSeconds: duration)
        }
        if json { printJSON(report); return }
        print("\(TitleFormatter.bytes(report.bytes)) (\(report.bytes ?? 0) bytes, \(report.exact ? "exact" : "from bandwidth × duration")), \(report.files) files, \(TitleFormatter.duration(report.durationSeconds))")
    }
}
