/// The rules of `--video-codec`, `--video-range`, `--audio-codec` and `--channels`, in one place for the HLS and
/// the DASH selector: each hands over what a rendition offers (codec family, range, channels) and gets back
/// whether it fits and how preferred it is; the bit-rate rule then picks among the most preferred.
extension Selection {
    /// Channels assumed for audio that does not declare them (HLS without `CHANNELS`, DASH without
    /// `AudioChannelConfiguration`, audio muxed into the video): stereo, as players assume.
    public static let assumedChannels = 2

    /// Whether a video option is given.
    public var filtersVideo: Bool { videoCodec != nil || videoRange != nil }
    /// Whether an audio option is given.
    public var filtersAudio: Bool { audioCodec != nil || channels != nil }

    /// The rank of video of `codec` in `range` in the preference order of `--video-codec` (0 = first); nil when the
    /// selection refuses it. An undeclared codec is refused once `--video-codec` names any: it cannot be shown to
    /// be one the device decodes.
    public func videoRank(codec: CodecFamily?, range: VideoRange) -> Int? {
        if let videoRange, range != videoRange { return nil }
        guard let videoCodec else { return 0 }
        return codec.flatMap { videoCodec.firstIndex(of: $0) }
    }

    /// The rank of audio offering `codecs` (a variant may list several) with `channels` (nil: undeclared, taken as
    /// ``assumedChannels``); nil when the selection refuses it.
    public func audioRank(codecs: [CodecFamily], channels: Int?) -> Int? {
        if let limit = self.channels, (channels ?? Self.assumedChannels) > limit { return nil }
        guard let audioCodec else { return 0 }
        return codecs.compactMap { audioCodec.firstIndex(of: $0) }.min()
    }

    /// The items of the best rank, in their order; empty when `rank` refuses every one.
    public static func preferred<T>(_ items: [T], rank: (T) -> Int?) -> [T] {
        let ranked = items.compactMap { item in rank(item).map { (item, $0) } }
        guard let best = ranked.map(\.1).min() else { return [] }
        return ranked.filter { $0.1 == best }.map(\.0)
    }

    /// The decoding options given, as typed (`--video-codec avc,hevc --channels 2`), for refusals.
    public var decodeOptions: String {
        var parts: [String] = []
        if let videoCodec { parts.append("--video-codec " + videoCodec.map(\.rawValue).joined(separator: ",")) }
        if let videoRange { parts.append("--video-range \(videoRange.rawValue)") }
        if let audioCodec { parts.append("--audio-codec " + audioCodec.map(\.rawValue).joined(separator: ",")) }
        if let channels { parts.append("--channels \(channels)") }
        if audioOnly == true { parts.append("--audio-only") }
        return parts.joined(separator: " ")
    }

    /// The message of a refusal: no `what` satisfies the options; `offer` (one line per rendition, repeats
    /// dropped) says what the source has instead.
    public func nothingSatisfies(_ what: String, offer: [String]) -> String {
        var seen: [String] = []
        for o in offer where !seen.contains(o) { seen.append(o) }
        return "no \(what) satisfies \(decodeOptions); on offer: "
            + (seen.isEmpty ? "nothing" : seen.prefix(20).joined(separator: ", "))
    }

    /// One video rendition in a refusal or `variants`: `hevc pq 1920x1080` (`?` for an undeclared codec).
    public static func describeVideo(codec: CodecFamily?, range: VideoRange, resolution: String?) -> String {
        "\(codec?.rawValue ?? "?") \(range.rawValue)" + (resolution.map { " \($0)" } ?? "")
    }

    /// One audio rendition in a refusal: `ac-3 6ch` (`?` for undeclared codecs, `?ch` for undeclared channels).
    public static func describeAudio(codecs: [CodecFamily], channels: Int?) -> String {
        let names = codecs.isEmpty ? "?" : codecs.map(\.rawValue).joined(separator: "+")
        return "\(names) \(channels.map(String.init) ?? "?")ch"
    }
}

extension Selection {
    /// A catalogue's `selection` names codecs by key, so `videoCodec` could list an audio codec or the reverse:
    /// refused naming the key (the command line parses each list for its kind already).
    public func checkCodecKinds() throws(SelectionError) {
        if let wrong = videoCodec?.first(where: { !$0.isVideo }) {
            throw SelectionError(
                "videoCodec",
                "'\(wrong.rawValue)' is not a video codec; one of "
                    + CodecFamily.video.map(\.rawValue).joined(separator: ", "))
        }
        if let wrong = audioCodec?.first(where: \.isVideo) {
            throw SelectionError(
                "audioCodec",
                "'\(wrong.rawValue)' is not an audio codec; one of "
                    + CodecFamily.audio.map(\.rawValue).joined(separator: ", "))
        }
    }
}
