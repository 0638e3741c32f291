import StowageProtocol

/// What the device decodes (`--video-codec`, `--video-range`, `--audio-codec`, `--channels`, `--audio-only`) applied
/// to a master playlist's variants, by the rules of ``Selection`` (shared with DASH).
extension RenditionSelector {
    /// The variants of `pool` the device decodes, of the most preferred codec; a refusal naming what is on offer
    /// when none fits. Without the options, `pool` unchanged.
    static func decodable(
        _ pool: [MasterPlaylist.Variant], in master: MasterPlaylist, _ selection: Selection
    ) throws(PlaylistError) -> [MasterPlaylist.Variant] {
        var out = pool
        if selection.filtersVideo {
            out = Selection.preferred(out) { selection.videoRank(codec: $0.videoFamily, range: $0.videoRange) }
            guard !out.isEmpty else {
                throw PlaylistError(
                    .nothingSelectable, url: master.url, line: nil,
                    selection.nothingSatisfies("video variant", offer: pool.map(videoOffer)))
            }
        }
        if selection.filtersAudio {
            let before = out
            out = Selection.preferred(out) { audioRank($0, in: master, selection) }
            guard !out.isEmpty else {
                throw PlaylistError(
                    .nothingSelectable, url: master.url, line: nil,
                    selection.nothingSatisfies("audio", offer: before.flatMap { audioOffers($0, in: master) }))
            }
        }
        return out
    }

    /// `--audio-only`: an audio-only variant when the master has one; else the audio rendition (with its own
    /// playlist) of a video variant, made the variant of the offline copy, so no video is fetched.
    static func audioOnly(_ master: MasterPlaylist, _ selection: Selection) throws(PlaylistError) -> Choice {
        let audioVariants = master.variants.filter { !$0.hasVideo }
        if !audioVariants.isEmpty {
            let variant = pick(try decodable(audioVariants, in: master, selection), bitrate: selection.bitrate)
            return Choice(
                variant: variant, audio: try audio(for: variant, in: master, selection),
                subtitles: subtitles(for: variant, in: master, choice: selection.subtitles))
        }
        let withAudio = master.variants.filter { v in audioMembers(of: v, in: master).contains { $0.uri != nil } }
        guard !withAudio.isEmpty else {
            throw PlaylistError(
                .nothingSelectable, url: master.url, line: nil,
                "--audio-only: no audio-only variant and no audio rendition with a playlist of its own "
                    + "(the audio is muxed into the video); on offer: "
                    + Set(master.variants.map(videoOffer)).sorted().joined(separator: ", "))
        }
        let variant = pick(try decodable(withAudio, in: master, selection), bitrate: selection.bitrate)
        guard let rendition = try audio(for: variant, in: master, selection).first(where: { $0.uri != nil }) else {
            throw PlaylistError(
                .nothingSelectable, url: master.url, line: variant.line,
                "--audio-only: the audio chosen for variant \(variant.uri) is muxed into its video")
        }
        return Choice(
            variant: audioVariant(variant, rendition), audio: [],
            subtitles: subtitles(for: variant, in: master, choice: selection.subtitles))
    }

    /// An audio rendition as a variant of its own: the video variant's attributes without the picture (resolution,
    /// frame rate, range, captions, video codecs) and without the audio group, pointing at the rendition's
    /// playlist. Its `BANDWIDTH` stays the video variant's (an upper bound: HLS gives renditions none).
    static func audioVariant(
        _ variant: MasterPlaylist.Variant, _ rendition: MasterPlaylist.Rendition
    ) -> MasterPlaylist.Variant {
        var attributes = variant.attributes
        for name in ["RESOLUTION", "FRAME-RATE", "VIDEO-RANGE", "HDCP-LEVEL", "CLOSED-CAPTIONS", "AUDIO"] {
            attributes.remove(name)
        }
        attributes.remove("AVERAGE-BANDWIDTH")
        let audioCodecs = (variant.codecs ?? "").split(separator: ",").filter {
            CodecFamily(rfc6381: $0).map { !$0.isVideo } ?? false
        }
        if audioCodecs.isEmpty {
            attributes.remove("CODECS")
        } else {
            attributes.setQuoted("CODECS", audioCodecs.joined(separator: ","))
        }
        return MasterPlaylist.Variant(attributes: attributes, uri: rendition.uri ?? variant.uri, line: rendition.line)
    }

    /// The AUDIO renditions of a variant's group.
    static func audioMembers(
        of variant: MasterPlaylist.Variant, in master: MasterPlaylist
    ) -> [MasterPlaylist.Rendition] {
        guard let group = variant.audioGroup else { return [] }
        return master.renditions.filter { $0.type == "AUDIO" && $0.groupID == group }
    }

    /// A variant's audio rank: the best of its group's renditions, or of its muxed audio.
    static func audioRank(_ variant: MasterPlaylist.Variant, in master: MasterPlaylist, _ selection: Selection) -> Int?
    {
        let members = audioMembers(of: variant, in: master)
        guard !members.isEmpty else { return selection.audioRank(codecs: variant.audioFamilies, channels: nil) }
        return members.compactMap { selection.audioRank(codecs: variant.audioFamilies, channels: $0.channels) }.min()
    }

    static func videoOffer(_ variant: MasterPlaylist.Variant) -> String {
        Selection.describeVideo(
            codec: variant.videoFamily, range: variant.videoRange,
            resolution: variant.resolution.map { "\($0.width)x\($0.height)" })
    }

    static func audioOffer(_ variant: MasterPlaylist.Variant, _ rendition: MasterPlaylist.Rendition) -> String {
        Selection.describeAudio(codecs: variant.audioFamilies, channels: rendition.channels)
    }

    static func audioOffers(_ variant: MasterPlaylist.Variant, in master: MasterPlaylist) -> [String] {
        let members = audioMembers(of: variant, in: master)
        guard !members.isEmpty else { return [Selection.describeAudio(codecs: variant.audioFamilies, channels: nil)] }
        return members.map { audioOffer(variant, $0) }
    }
}
