import StowageProtocol

/// Applies the user's selection (`--bitrate`, `--max-height`, `--audio`, `--subtitles`) to a master playlist.
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
        var candidates = master.variants
        if let maxHeight = selection.maxHeight {
            candidates = candidates.filter { ($0.resolution?.height ?? 0) <= maxHeight }
            guard !candidates.isEmpty else {
                throw PlaylistError(
                    .nothingSelectable, url: master.url, line: nil, "no variant is at most \(maxHeight) pixels high")
            }
        }
        let withVideo = candidates.filter(\.hasVideo)
        let pool = withVideo.isEmpty ? candidates : withVideo
        let byBandwidth = pool.sorted { $0.bandwidth < $1.bandwidth }
        let variant: MasterPlaylist.Variant
        if let bitrate = selection.bitrate {
            variant = byBandwidth.last(where: { $0.bandwidth <= bitrate }) ?? byBandwidth[0]
        } else {
            variant = byBandwidth[0]
        }
        return Choice(
            variant: variant,
            audio: try audio(for: variant, in: master, languages: selection.audio),
            subtitles: subtitles(for: variant, in: master, choice: selection.subtitles),
            iFrames: selection.iframes == true ? iFrames(for: variant, in: master) : nil)
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

    static func audio(
        for variant: MasterPlaylist.Variant, in master: MasterPlaylist,
        languages: [String]?
    ) throws(PlaylistError) -> [MasterPlaylist.Rendition] {
        guard let group = variant.audioGroup else { return [] }
        let members = master.renditions.filter { $0.type == "AUDIO" && $0.groupID == group }
        guard !members.isEmpty else {
            throw PlaylistError(
                .malformed, url: master.url, line: variant.line,
                "variant names AUDIO group '\(group)' that has no #EXT-X-MEDIA")
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
