import StowageProtocol

/// Applies the user's selection (`--bitrate`, `--max-height`, `--audio`, `--subtitles`, and what the device decodes:
/// `--video-codec`, `--video-range`, `--audio-codec`, `--channels`, `--audio-only`) to an MPD, Period by Period with
/// the same rules, so that every Period gets the matching choice. The decoding rules are ``Selection``'s, shared
/// with HLS.
public enum RepresentationSelector {
    /// One chosen Representation: indexes into its Period.
    public struct Track: Sendable, Equatable {
        public var kind: PlannedRendition.Kind
        public var adaptationSet: Int
        public var representation: Int
        public var language: String?

        public init(kind: PlannedRendition.Kind, adaptationSet: Int, representation: Int, language: String? = nil) {
            self.kind = kind
            self.adaptationSet = adaptationSet
            self.representation = representation
            self.language = language
        }
    }

    /// What was chosen in one Period.
    public struct PeriodChoice: Sendable, Equatable {
        public var period: Int
        public var video: Track?
        public var audio: [Track]
        public var subtitles: [Track]
        /// With `--iframes`: the trick-mode (I-frame) Representation that goes with `video`.
        public var trickMode: Track? = nil

        /// Video, then audio, then subtitles, then the trick-mode video (last, so the others keep their places).
        public var tracks: [Track] { (video.map { [$0] } ?? []) + audio + subtitles + (trickMode.map { [$0] } ?? []) }
    }

    /// The choice in every Period. Video: the highest Representation whose bandwidth is not above
    /// `selection.bitrate` (nil: the lowest), among those not taller than `maxHeight`. Audio: each language asked
    /// for (a Period without it gets its default), nil = the AdaptationSet with Role `main`, else the first; its
    /// Representation is the lowest without a bitrate, else the highest fitting beside the video. Subtitles: text
    /// AdaptationSets (WebVTT or `contentType="text"`) in the languages asked for, `all`, or none. Video and audio
    /// keep to what the device decodes, the most preferred codec first; `audioOnly` keeps no video. Trick-mode
    /// sets are never the video; with `iframes` the one that goes with it is kept too (``chooseTrickMode``).
    public static func select(_ mpd: MPD, _ selection: Selection) throws(DASHError) -> [PeriodChoice] {
        var choices: [PeriodChoice] = []
        var languageFound = false
        for (index, period) in mpd.periods.enumerated() {
            let video = try chooseVideo(period, selection)
            let videoBandwidth = video.map {
                period.adaptationSets[$0.adaptationSet].representations[$0.representation]
            }?
            .bandwidth
            let (audio, matched) = try chooseAudio(period, selection, videoBandwidth: videoBandwidth ?? 0)
            languageFound = languageFound || matched
            guard video != nil || !audio.isEmpty else {
                let what = selection.audioOnly == true ? "audio (--audio-only)" : "video or audio"
                throw DASHError(
                    .nothingSelectable, element: "Period",
                    "Period \(period.id ?? String(index)) has no \(what) Representation")
            }
            choices.append(
                PeriodChoice(
                    period: index, video: video, audio: audio, subtitles: chooseSubtitles(period, selection.subtitles),
                    trickMode: chooseTrickMode(period, video: video, selection)))
        }
        if let wanted = selection.audio, !wanted.isEmpty, !languageFound {
            let available = Set(
                mpd.periods.flatMap(\.adaptationSets).filter { $0.contentType == .audio }.compactMap(\.lang)
            ).sorted().joined(separator: ", ")
            let listed = available.isEmpty ? "none labelled" : available
            throw DASHError(
                .nothingSelectable, element: "AdaptationSet", attribute: "lang",
                "no audio in \(wanted.joined(separator: ",")); available: \(listed)")
        }
        return choices
    }

    private static func chooseVideo(_ period: Period, _ selection: Selection) throws(DASHError) -> Track? {
        if selection.audioOnly == true { return nil }
        var candidates: [(track: Track, rep: Representation)] = []
        for (s, set) in period.adaptationSets.enumerated() where set.contentType == .video && !set.isTrickMode {
            for (r, rep) in set.representations.enumerated() {
                candidates.append((Track(kind: .video, adaptationSet: s, representation: r, language: set.lang), rep))
            }
        }
        guard !candidates.isEmpty else { return nil }
        if let maxHeight = selection.maxHeight {
            candidates = candidates.filter { ($0.rep.height ?? 0) <= maxHeight }
            guard !candidates.isEmpty else {
                throw DASHError(
                    .nothingSelectable, element: "Representation", attribute: "height",
                    "no video Representation is at most \(maxHeight) pixels high")
            }
        }
        if selection.filtersVideo {
            let all = candidates
            candidates = Selection.preferred(candidates) {
                selection.videoRank(codec: CodecFamily.videoFamily(in: $0.rep.codecs), range: $0.rep.videoRange)
            }
            guard !candidates.isEmpty else {
                throw DASHError(
                    .nothingSelectable, element: "Representation", attribute: "codecs",
                    selection.nothingSatisfies("video Representation", offer: all.map { videoOffer($0.rep) }))
            }
        }
        return pick(candidates, bitrate: selection.bitrate)
    }

    /// With `--iframes` (`selection.iframes`), the trick-mode video set (DASH-IF IOP: an `EssentialProperty` or
    /// `SupplementalProperty` `http://dashif.org/guidelines/trickmode`) whose value names the chosen video's set,
    /// else the first trick-mode video set; its Representation is the highest not above the chosen video's
    /// bandwidth, else its lowest. Without `--iframes`, or without video, none: a trick-mode set is left out.
    static func chooseTrickMode(_ period: Period, video: Track?, _ selection: Selection) -> Track? {
        guard selection.iframes == true, let video else { return nil }
        let main = period.adaptationSets[video.adaptationSet]
        let sets = period.adaptationSets.enumerated().filter {
            $0.element.isTrickMode && $0.element.contentType == .video && !$0.element.representations.isEmpty
        }
        guard let set = sets.first(where: { main.id != nil && $0.element.trickModeOf == main.id }) ?? sets.first
        else { return nil }
        let candidates = set.element.representations.enumerated().map {
            (
                track: Track(
                    kind: .video, adaptationSet: set.offset, representation: $0.offset, language: set.element.lang),
                rep: $0.element
            )
        }
        return pick(candidates, bitrate: main.representations[video.representation].bandwidth)
    }

    /// The highest not above `bitrate`, else the lowest; the first listed among equals.
    private static func pick(_ candidates: [(track: Track, rep: Representation)], bitrate: Int?) -> Track? {
        let sorted = candidates.enumerated().sorted {
            ($0.element.rep.bandwidth, $0.offset) < ($1.element.rep.bandwidth, $1.offset)
        }.map(\.element)
        guard let lowest = sorted.first else { return nil }
        guard let bitrate else { return lowest.track }
        return (sorted.last(where: { $0.rep.bandwidth <= bitrate }) ?? lowest).track
    }

    private static func chooseAudio(
        _ period: Period, _ selection: Selection, videoBandwidth: Int
    ) throws(DASHError) -> (tracks: [Track], matchedLanguage: Bool) {
        let sets = period.adaptationSets.enumerated().filter {
            $0.element.contentType == .audio && !$0.element.isTrickMode
        }
        guard !sets.isEmpty else { return ([], false) }
        func repRank(_ rep: Representation) -> Int? {
            selection.audioRank(codecs: CodecFamily.audioFamilies(in: rep.codecs), channels: rep.audioChannels)
        }
        func setRank(_ set: AdaptationSet) -> Int? {
            selection.filtersAudio ? set.representations.compactMap(repRank).min() : 0
        }
        let fitting = sets.filter { setRank($0.element) != nil }
        guard !fitting.isEmpty else {
            throw DASHError(
                .nothingSelectable, element: "AdaptationSet", attribute: "codecs",
                selection.nothingSatisfies(
                    "audio Representation", offer: sets.flatMap(\.element.representations).map(audioOffer)))
        }
        let budget = selection.bitrate.map { max($0, 0) - videoBandwidth }  // both within 0…1 Tbit/s
        func track(_ s: Int, _ set: AdaptationSet) -> Track? {
            var candidates = set.representations.enumerated().map {
                (
                    track: Track(kind: .audio, adaptationSet: s, representation: $0.offset, language: set.lang),
                    rep: $0.element
                )
            }
            if selection.filtersAudio { candidates = Selection.preferred(candidates) { repRank($0.rep) } }
            return pick(candidates, bitrate: budget)
        }
        if let languages = selection.audio, !languages.isEmpty {
            var chosen: [Track] = []
            for language in languages {
                let speaking = fitting.filter { matches($0.element.lang, language) }
                if let match = Selection.preferred(speaking, rank: { setRank($0.element) }).first,
                    !chosen.contains(where: { $0.adaptationSet == match.offset }),
                    let t = track(match.offset, match.element)
                {
                    chosen.append(t)
                }
            }
            if !chosen.isEmpty { return (chosen, true) }
        }
        let best = Selection.preferred(fitting) { setRank($0.element) }
        let main = best.first(where: { $0.element.isMain }) ?? best[0]
        return (track(main.offset, main.element).map { [$0] } ?? [], false)
    }

    static func videoOffer(_ rep: Representation) -> String {
        Selection.describeVideo(
            codec: CodecFamily.videoFamily(in: rep.codecs), range: rep.videoRange,
            resolution: rep.width.flatMap { w in rep.height.map { "\(w)x\($0)" } })
    }

    static func audioOffer(_ rep: Representation) -> String {
        Selection.describeAudio(codecs: CodecFamily.audioFamilies(in: rep.codecs), channels: rep.audioChannels)
    }

    private static func chooseSubtitles(_ period: Period, _ choice: [String]?) -> [Track] {
        guard let choice, !choice.isEmpty, choice != ["none"] else { return [] }
        let sets = period.adaptationSets.enumerated().filter {
            isSubtitles($0.element) && !$0.element.representations.isEmpty
        }
        let wanted =
            choice.contains("all") ? sets : sets.filter { s in choice.contains { matches(s.element.lang, $0) } }
        return wanted.map {
            Track(kind: .subtitles, adaptationSet: $0.offset, representation: 0, language: $0.element.lang)
        }
    }

    /// A text AdaptationSet: `contentType="text"` or WebVTT.
    static func isSubtitles(_ set: AdaptationSet) -> Bool {
        set.contentType == .text || set.mimeType == "text/vtt"
            || set.representations.contains { $0.mimeType == "text/vtt" }
    }

    /// Language match: case-insensitive, `en` matches `en-US`.
    static func matches(_ tag: String?, _ wanted: String) -> Bool {
        guard let tag = tag?.lowercased() else { return false }
        let w = wanted.lowercased()
        return tag == w || tag.hasPrefix(w + "-") || w.hasPrefix(tag + "-")
    }
}
