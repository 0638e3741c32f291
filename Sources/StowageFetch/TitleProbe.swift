import Foundation
import StowageDASH
import StowageHLS
import StowageProtocol

/// Looks at a source before it is a title: the renditions it offers (`stowctl variants`) and the bytes a
/// selection takes (`stowctl estimate`). `stowctl` and the gateway's console both ask here, through a fetcher
/// whose ``HTTPFetcher/scope`` the caller sets (the console's is the scheduler's, for the box's allow-lists).
public enum TitleProbe {
    /// The renditions of the HLS playlist or DASH MPD at `url`.
    public static func variants(_ url: String, headers: [Header], fetcher: HTTPFetcher) async throws -> VariantsReport {
        let (text, finalURL) = try await fetcher.fetchText(url, headers: headers)
        if DASHResolver.isMPD(text) { return try dashReport(text: text, url: finalURL) }
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
                hasVideo: v.hasVideo, videoRange: v.videoRange)
        }
        let renditions = master.renditions.map { r in
            let codecs =
                r.type == "AUDIO"
                ? master.variants.first(where: { $0.audioGroup == r.groupID }).map(\.audioFamilies) ?? [] : []
            return MediaInfo(
                type: r.type, groupID: r.groupID, name: r.name, language: r.language, isDefault: r.isDefault,
                uri: r.uri, channels: r.channels, audioCodec: codecs)
        }
        return VariantsReport(url: finalURL, isMaster: true, variants: variants, renditions: renditions)
    }

    /// The bytes `work`'s selection takes: bandwidth × duration from the plan, or (`exact`, or a plan without
    /// bandwidths) the sum of every file's `Content-Length`.
    /// A dynamic MPD (a live stream) is estimated per hour of recording (``liveEstimate(_:mpd:exact:)``).
    public static func estimate(_ work: ResolveWork, exact: Bool, fetcher: HTTPFetcher) async throws -> EstimateReport {
        let (text, finalURL) = try await fetcher.fetchText(work.url, headers: work.headers)
        if DASHResolver.isMPD(text), let mpd = try? MPD(liveData: Data(text.utf8), url: finalURL),
            mpd.type == .dynamic
        {
            return try liveEstimate(work, mpd: mpd, exact: exact)
        }
        let plan = try await PlaylistResolver(fetcher: fetcher).resolve(work, text: text, url: finalURL)
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
        var report = EstimateReport(
            url: work.url, bytes: bytes, exact: exact || plan.bytesEstimate == nil, files: plan.resources.count,
            durationSeconds: duration, protection: plan.protection)
        report.range = plan.clip
        return report
    }

    /// The protection of every Representation of an MPD, as `submit`'s plan would record it.
    public static func protection(of mpd: MPD) -> TitleProtection? {
        let all = mpd.periods.flatMap(\.adaptationSets).flatMap(\.representations).flatMap(\.contentProtections)
        let summary = ProtectionSummary(all)
        return summary.isEncrypted ? DASHPlanner.protection(summary) : nil
    }
}
