import ArgumentParser
import Foundation
import Logging
import StowageFetch
import StowageHLS
import StowageProtocol

struct Variants: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the renditions of an HLS playlist or DASH MPD: bandwidth, resolution, codecs, languages.")

    @Argument(help: "URL of the HLS master (or media) playlist, or of a DASH MPD.")
    var url: String
    @Option(name: .customLong("header"), help: "An HTTP header, 'Name: value' (repeatable).")
    var headers: [String] = []
    @Flag(help: "Machine-readable JSON output.")
    var json = false

    func run() async throws {
        let headers = self.headers.compactMap(Header.init(parsing:))
        let report = try await withFetcher(source: url) { fetcher in
            try await TitleProbe.variants(url, headers: headers, fetcher: fetcher)
        }
        ProtectionNote.warn(report.protection, url: report.url)
        if json {
            printJSON(report)
            return
        }
        guard report.isMaster else {
            print("\(report.url) is a media playlist: one rendition")
            return
        }
        print("variants:")
        for v in report.variants {
            let kbps = "\(v.bandwidth / 1000) kb/s".padding(toLength: 11, withPad: " ", startingAt: 0)
            let picture = (v.resolution ?? (v.hasVideo ? "?" : "audio"))
                .padding(toLength: 10, withPad: " ", startingAt: 0)
            let decodes = [v.videoCodec, v.videoRange, v.audioCodec, v.channels.map { "\($0)ch" }].compactMap { $0 }
            print(
                "  [\(v.index)] \(kbps) \(picture) \(decodes.isEmpty ? "-" : decodes.joined(separator: " "))  "
                    + "\(v.codecs ?? "-")  audio=\(v.audioGroup ?? "-") "
                    + "subtitles=\(v.subtitlesGroup ?? "-")  \(v.uri)" + (v.trickMode == true ? "  trick-mode" : ""))
        }
        if !report.renditions.isEmpty { print("renditions:") }
        for r in report.renditions {
            let type = r.type.padding(toLength: 15, withPad: " ", startingAt: 0)
            let flag = r.isDefault ? " DEFAULT" : ""
            let audio =
                r.type == "AUDIO" ? " codec=\(r.audioCodec ?? "-") channels=\(r.channels.map(String.init) ?? "-")" : ""
            print(
                "  \(type) group=\(r.groupID) lang=\(r.language ?? "-") name=\"\(r.name)\"\(flag)\(audio)  "
                    + (r.uri ?? "(in the variant)"))
        }
        if let p = report.protection { print("protected: \(p.scheme ?? "encrypted")") }
        if report.live == true { print("live (a dynamic MPD): record it with stowctl submit --record") }
    }
}

/// Runs `body` with an HTTP client of its own, and shuts the client down after it, also when it throws. Its fetches
/// keep to the rules of a title from `source`: no address deeper than the source's, the headers only to its host.
func withFetcher<T: Sendable>(source: String, _ body: (HTTPFetcher) async throws -> T) async throws -> T {
    let fetcher = HTTPFetcher(logger: Logger(label: "stowctl"))
    do {
        let value = try await HTTPFetcher.$scope.withValue(FetchScope(source: source)) { try await body(fetcher) }
        await fetcher.shutdown()
        return value
    } catch {
        await fetcher.shutdown()
        throw error
    }
}
