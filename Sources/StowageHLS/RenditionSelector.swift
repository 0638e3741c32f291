import StowageProtocol

/// Applies the user's selection (`--bitrate`, `--max-height`, `--audio`, `--subtitles`, and what the device decodes:
/// `--video-codec`, `--video-range`, `--audio-codec`, `--channels`, `--audio-only`) to a master playlist.
public enum RenditionSelector {
    /// What was chosen.
    public struct Choice: Sendable {
        public var variant: MasterPlaylist.Variant
        /// Audio renditions with their own playlist (muxed audio has none).
        public var audio: [MasterPlaylist.Rendition]
        public var subtitles: [MasterPlaylist.Rendition]
        /// The variant's I-frame playlist, when the selection keeps one (`iframes`).
        public var iFrames: MasterPlaylist.IFrameStream? = nil
    }

    public static func select(_ master: MasterPlaylist, _ selection: Selection) throws(PlaylistError) -> Choice {
        if selection.audioOnly == true { return try audioOnly(master, selection) }
        var candidates = master.variants
        if let maxHeight = selection.maxHeight {
            candidates = candidates.filter { ($0.resolution?.height ?? 0) <= maxHeight }
            guard !candidates.isEmpty else {
                throw PlaylistError(
                    .nothingSelectable, url: master.url, line: nil, "no variant is at most \(maxHeight) pixels high")
            }
        }
        let withVideo = candidates.filter(\.hasVideo)
        let pool = try decodable(withVideo.isEmpty ? candidates : withVideo, in: master, selection)
        let variant = pick(pool, bitrate: selection.bitrate)
        return Choice(
            variant: variant,
            audio: try audio(for: variant, in: master, selection),
            subtitles: subtitles(for: variant, in: master, choice: selection.subtitles),
            iFrames: selection.iframes == true ? iFrames(for: variant, in: master) : nil)
    }

    /// The highest variant of `pool` (not empty) whose bandwidth is not above `bitrate`, else the lowest.
    static func pick(_ pool: [MasterPlaylist.Variant], bitrate: Int?) -> MasterPlaylist.Variant {
        let byBandwidth = pool.sorted { $0.bandwidth < $1.bandwidth }
        guard let bitrate else { return byBandwidth[0] }
        return byBandwidth.last(where: { $0.bandwidth <= bitrate }) ?? byBandwidth[0]
    }

    /// The I-frame playlist that goes with `variant`: the one of the same resolution (the same encode, as
    /// packagers write them), else the highest bandwidth not above the variant's, else the lowest; nil when the
    /// master has none.
    static func iFrames(for variant: MasterPlaylist.Variant, in master: MasterPlaylist) -> MasterPlaylist.IFrameStream?
    {
        let streams = master.iFrameStreams.sorted { $0.bandwidth < $1.bandwidth }
        if let r = variant.resolution, let same = streams.last(where: { $0.resolution == "\(r.width)x\(r.height)" }) {
            return same
        }
        return streams.last(where: { $0.bandwidth <= variant.bandwidth }) ?? streams.first
    }

    /// The audio renditions kept with `variant`: each language asked for, else the DEFAULT one; with `--channels`
    /// only those within it (the variant was chosen because its group has one).
    static func audio(
        for variant: MasterPlaylist.Variant, in master: MasterPlaylist, _ selection: Selection
    ) throws(PlaylistError) -> [MasterPlaylist.Rendition] {
        let languages = selection.audio
        guard variant.audioGroup != nil else { return [] }
        var members = audioMembers(of: variant, in: master)
        guard !members.isEmpty else {
            throw PlaylistError(
                .malformed, url: master.url, line: variant.line,
                "variant names AUDIO group '\(variant.audioGroup ?? "")' that has no #EXT-X-MEDIA")
        }
        if selection.filtersAudio {
            let fitting = members.filter {
                selection.audioRank(codecs: variant.audioFamilies, channels: $0.channels) != nil
            }
            guard !fitting.isEmpty else {
                throw PlaylistError(
                    .nothingSelectable, url: master.url, line: variant.line,
                    selection.nothingSatisfies("audio", offer: members.map { audioOffer(variant, $0) }))
            }
            members = fitting
        }
        if let languages, !languages.isEmpty {
            var chosen: [MasterPlaylist.Rendition] = []
            for language in languages {
                if let r = members.first(where: { matches($0.language, language) }), !chosen.contains(r) {
                    chosen.append(r)
                }
            }
            guard !chosen.isEmpty else {
                let available = members.compactMap(\.language).joined(separator: ", ")
                throw PlaylistError(
                    .nothingSelectable, url: master.url, line: nil,
                    "no audio in \(languages.joined(separator: ",")); "
                        + "available: \(available.isEmpty ? "none labelled" : available)"
                )
            }
            return chosen
        }
        return [members.first(where: \.isDefault) ?? members[0]]
    }

    static func subtitles(
        for variant: MasterPlaylist.Variant, in master: MasterPlaylist,
        choice: [String]?
    ) -> [MasterPlaylist.Rendition] {
        guard let group = variant.subtitlesGroup, let choice, !choice.isEmpty, choice != ["none"] else { return [] }
        let members = master.renditions.filter { $0.type == "SUBTITLES" && $0.groupID == group && $0.uri != nil }
        if choice.contains("all") { return members }
        var chosen: [MasterPlaylist.Rendition] = []
        for language in choice {
            for r in members where matches(r.language, language) && !chosen.contains(r) { chosen.append(r) }
        }
        return chosen
    }

    /// Language match: case-insensitive, `en` matches `en-US`.
    static func matches(_ tag: String?, _ wanted: String) -> Bool {
        guard let tag = tag?.lowercased() else { return false }
        let w = wanted.lowercased()
        return tag == w || tag.hasPrefix(w + "-") || w.hasPrefix(tag + "-")
    }
}
