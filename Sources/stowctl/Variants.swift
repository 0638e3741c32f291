import ArgumentParser
import Foundation
import Logging
import StowageFetch
import StowageHLS
import StowageProtocol

/// One rendition of a master playlist, as `variants --json` shows it.
struct VariantInfo: Codable, Sendable {
    var index: Int
    var uri: String
    var bandwidth: Int
    var averageBandwidth: Int?
    var resolution: String?
    var codecs: String?
    var frameRate: Double?
    var audioGroup: String?
    var subtitlesGroup: String?
    var hasVideo: Bool
    /// DASH: a trick-mode (I-frame, fast-forward) AdaptationSet's Representation, never downloaded as the main
    /// video; nil for HLS.
    var trickMode: Bool? = nil
}

struct MediaInfo: Codable, Sendable {
    var type: String
    var groupID: String
    var name: String
    var language: String?
    var isDefault: Bool
    var uri: String?
}

struct VariantsReport: Codable, Sendable {
    var url: String
    var isMaster: Bool
    var variants: [VariantInfo]
    var renditions: [MediaInfo]
    /// A DASH MPD's protection as `submit` would record it (absent for HLS, whose keys are in media playlists).
    var protection: TitleProtection? = nil
}

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
            let (text, finalURL) = try await fetcher.fetchText(url, headers: headers)
            if DASHResolver.isMPD(text) { return try Self.dashReport(text: text, url: finalURL) }
            guard PlaylistLines.isMaster(text) else {
                _ = try MediaPlaylist(text: text, url: finalURL)
                return VariantsReport(url: finalURL, isMaster: false, variants: [], renditions: [])
            }
            let master = try MasterPlaylist(text: text, url: finalURL)
            let variants = master.variants.enumerated().map { i, v in
                VariantInfo(
                    index: i, uri: v.uri, bandwidth: v.bandwidth, averageBandwidth: v.averageBandwidth,
                    resolution: v.resolution.map { "\($0.width)x\($0.height)" }, codecs: v.codecs,
                    frameRate: v.frameRate, audioGroup: v.audioGroup, subtitlesGroup: v.subtitlesGroup,
                    hasVideo: v.hasVideo)
            }
            let renditions = master.renditions.map {
                MediaInfo(
                    type: $0.type, groupID: $0.groupID, name: $0.name, language: $0.language,
                    isDefault: $0.isDefault, uri: $0.uri)
            }
            return VariantsReport(url: finalURL, isMaster: true, variants: variants, renditions: renditions)
        }
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
            print(
                "  [\(v.index)] \(kbps) \(picture) \(v.codecs ?? "-")  audio=\(v.audioGroup ?? "-") "
                    + "subtitles=\(v.subtitlesGroup ?? "-")  \(v.uri)" + (v.trickMode == true ? "  trick-mode" : ""))
        }
        if !report.renditions.isEmpty { print("renditions:") }
        for r in report.renditions {
            let type = r.type.padding(toLength: 15, withPad: " ", startingAt: 0)
            let flag = r.isDefault ? " DEFAULT" : ""
            print(
                "  \(type) group=\(r.groupID) lang=\(r.language ?? "-") name=\"\(r.name)\"\(flag)  "
                    + (r.uri ?? "(in the variant)"))
        }
        if let p = report.protection { print("protected: \(p.scheme ?? "encrypted")") }
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
