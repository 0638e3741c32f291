import Foundation
import StowageDASH
import StowageProtocol

extension TitleProbe {
    /// An MPD's Representations as variants (video, or audio when a Period has no video) and its audio and text
    /// AdaptationSets as renditions, Period by Period; a Representation's `uri` is `period/set/representation`.
    /// Trick-mode sets are listed marked `trickMode`: they are not a picture a user can choose to download.
    /// A dynamic MPD (a live stream) lists the Periods it has now, and says it is live.
    static func dashReport(text: String, url: String) throws -> VariantsReport {
        let mpd = try MPD(liveData: Data(text.utf8), url: url)
        let protection = Self.protection(of: mpd)
        var variants: [VariantInfo] = []
        var renditions: [MediaInfo] = []
        for (p, period) in mpd.periods.enumerated() {
            let periodName = period.id ?? String(p)
            let hasVideo = period.adaptationSets.contains { $0.contentType == .video && !$0.isTrickMode }
            for (s, set) in period.adaptationSets.enumerated() {
                let group = "\(periodName)/\(set.id ?? String(s))"
                if set.contentType == .video || (!hasVideo && set.contentType == .audio) {
                    for rep in set.representations {
                        variants.append(
                            VariantInfo(
                                index: variants.count, uri: "\(group)/\(rep.id)", bandwidth: rep.bandwidth,
                                averageBandwidth: nil,
                                resolution: rep.width.flatMap { w in rep.height.map { "\(w)x\($0)" } },
                                codecs: rep.codecs ?? set.codecs, frameRate: rep.frameRate.flatMap(Self.rate),
                                audioGroup: nil, subtitlesGroup: nil, hasVideo: set.contentType == .video,
                                trickMode: set.isTrickMode, videoRange: rep.videoRange, channels: rep.audioChannels))
                    }
                }
                if set.contentType == .audio || set.contentType == .text {
                    renditions.append(
                        MediaInfo(
                            type: set.contentType == .audio ? "AUDIO" : "SUBTITLES", groupID: group,
                            name: set.label ?? set.lang ?? group, language: set.lang, isDefault: set.isMain,
                            uri: nil, channels: set.representations.compactMap(\.audioChannels).max(),
                            audioCodec: Array(
                                Set(set.representations.flatMap { CodecFamily.audioFamilies(in: $0.codecs) })
                            ).sorted { $0.rawValue < $1.rawValue }))
                }
            }
        }
        return VariantsReport(
            url: url, isMaster: true, variants: variants, renditions: renditions, protection: protection,
            live: mpd.type == .dynamic ? true : nil)
    }

    /// The estimate of recording a live stream for an hour: the Representations `submit --record` would choose,
    /// each at its bandwidth (``LiveDASHEstimate``). `--exact` is refused: the files it would sum are not made yet.
    static func liveEstimate(_ work: ResolveWork, mpd: MPD, exact: Bool) throws -> EstimateReport {
        guard !exact else {
            throw TaskFailure(
                code: .usage,
                message: "\(mpd.url) is a live stream (a dynamic MPD): its segments are not made yet, so --exact "
                    + "has nothing to sum; leave it out for an estimate from bandwidth per hour of recording",
                retryable: false)
        }
        do {
            let hour = try LiveDASHEstimate.perHour(mpd: mpd, selection: work.selection)
            return EstimateReport(
                url: work.url, bytes: hour.bytes, exact: false, files: hour.files,
                durationSeconds: LiveDASHEstimate.seconds, protection: protection(of: mpd), perHourOfRecording: true)
        } catch {
            throw TaskFailure(code: .playlist, message: "\(mpd.url): \(error.description)", retryable: false)
        }
    }

    /// `25`, `30000/1001` -> frames per second.
    static func rate(_ text: String) -> Double? {
        let parts = text.split(separator: "/").compactMap { Double($0) }
        if parts.count == 2, parts[1] > 0 { return parts[0] / parts[1] }
        return parts.count == 1 ? parts[0] : nil
    }
}
