import StowageDASH
import StowageProtocol

extension TitleProbe {
    /// An MPD's Representations as variants (video, or audio when a Period has no video) and its audio and text
    /// AdaptationSets as renditions, Period by Period; a Representation's `uri` is `period/set/representation`.
    /// Trick-mode sets are listed marked `trickMode`: they are not a picture a user can choose to download.
    static func dashReport(text: String, url: String) throws -> VariantsReport {
        let mpd = try MPD(text: text, url: url)
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
            url: url, isMaster: true, variants: variants, renditions: renditions, protection: protection)
    }

    /// `25`, `30000/1001` -> frames per second.
    static func rate(_ text: String) -> Double? {
        let parts = text.split(separator: "/").compactMap { Double($0) }
        if parts.count == 2, parts[1] > 0 { return parts[0] / parts[1] }
        return parts.count == 1 ? parts[0] : nil
    }
}
