/// What a source URL offers and what a selection of it would take on disk, before anything is submitted:
/// `stowctl variants` and `stowctl estimate` print these, and the gateway's console shows them in its add-title
/// form (both build them with `StowageFetch`'s `TitleProbe`, so the two cannot disagree).
public struct TitlePreview: Codable, Sendable, Equatable {
    public var variants: VariantsReport
    public var estimate: EstimateReport

    public init(variants: VariantsReport, estimate: EstimateReport) {
        self.variants = variants
        self.estimate = estimate
    }
}

/// One rendition of a master playlist, as `variants --json` shows it.
public struct VariantInfo: Codable, Sendable, Equatable {
    public var index: Int
    public var uri: String
    public var bandwidth: Int
    public var averageBandwidth: Int?
    public var resolution: String?
    public var codecs: String?
    public var frameRate: Double?
    public var audioGroup: String?
    public var subtitlesGroup: String?
    public var hasVideo: Bool
    /// DASH: a trick-mode (I-frame, fast-forward) AdaptationSet's Representation, never downloaded as the main
    /// video; nil for HLS.
    public var trickMode: Bool?
    /// The video codec family (`avc`, `hevc`, `av1`) as `--video-codec` names it; nil without video or undeclared.
    public var videoCodec: String?
    /// `sdr`, `hlg` or `pq` as `--video-range` names it; nil without video.
    public var videoRange: String?
    /// The audio codec families of the rendition's own audio (`aac`, `ac-3`, `ec-3`, joined by `+`); nil if none.
    public var audioCodec: String?
    /// DASH audio: its channel count (`AudioChannelConfiguration`); nil when undeclared.
    public var channels: Int?

    public init(
        index: Int, uri: String, bandwidth: Int, averageBandwidth: Int?, resolution: String?, codecs: String?,
        frameRate: Double?, audioGroup: String?, subtitlesGroup: String?, hasVideo: Bool, trickMode: Bool? = nil,
        videoRange: VideoRange? = nil, channels: Int? = nil
    ) {
        self.index = index
        self.uri = uri
        self.bandwidth = bandwidth
        self.averageBandwidth = averageBandwidth
        self.resolution = resolution
        self.codecs = codecs
        self.frameRate = frameRate
        self.audioGroup = audioGroup
        self.subtitlesGroup = subtitlesGroup
        self.hasVideo = hasVideo
        self.trickMode = trickMode
        self.videoCodec = CodecFamily.videoFamily(in: codecs)?.rawValue
        self.videoRange = hasVideo ? (videoRange ?? .sdr).rawValue : nil
        let audio = CodecFamily.audioFamilies(in: codecs)
        self.audioCodec = audio.isEmpty ? nil : audio.map(\.rawValue).joined(separator: "+")
        self.channels = channels
    }
}

/// An alternative rendition (audio, subtitles) of a master playlist, or a DASH audio or text AdaptationSet.
public struct MediaInfo: Codable, Sendable, Equatable {
    public var type: String
    public var groupID: String
    public var name: String
    public var language: String?
    public var isDefault: Bool
    public var uri: String?
    /// Audio: the channel count (HLS `CHANNELS`, DASH `AudioChannelConfiguration`); nil when undeclared.
    public var channels: Int?
    /// Audio: the codec families (HLS: those the variants of its group list; DASH: its Representations'), joined
    /// by `+`; nil when undeclared.
    public var audioCodec: String?

    public init(
        type: String, groupID: String, name: String, language: String?, isDefault: Bool, uri: String?,
        channels: Int? = nil, audioCodec: [CodecFamily] = []
    ) {
        self.type = type
        self.groupID = groupID
        self.name = name
        self.language = language
        self.isDefault = isDefault
        self.uri = uri
        self.channels = channels
        self.audioCodec = audioCodec.isEmpty ? nil : audioCodec.map(\.rawValue).joined(separator: "+")
    }
}

/// `variants --json`: the renditions a source offers.
public struct VariantsReport: Codable, Sendable, Equatable {
    public var url: String
    public var isMaster: Bool
    public var variants: [VariantInfo]
    public var renditions: [MediaInfo]
    /// A DASH MPD's protection as `submit` would record it (absent for HLS, whose keys are in media playlists).
    public var protection: TitleProtection?
    /// True for a dynamic (live) MPD: its renditions are recorded with `submit --record` (absent otherwise).
    public var live: Bool?

    public init(
        url: String, isMaster: Bool, variants: [VariantInfo], renditions: [MediaInfo],
        protection: TitleProtection? = nil, live: Bool? = nil
    ) {
        self.url = url
        self.isMaster = isMaster
        self.variants = variants
        self.renditions = renditions
        self.protection = protection
        self.live = live
    }
}

/// `estimate --json`: the bytes a selection takes on disk.
public struct EstimateReport: Codable, Sendable, Equatable {
    public var url: String
    public var bytes: Int64?
    public var exact: Bool
    public var files: Int
    public var durationSeconds: Double
    /// The plan's protection, as `status --json` will show it (null when clear).
    public var protection: TitleProtection?
    /// `estimate --range`: the span the clip keeps, as `status --json` will report it (null for a whole title).
    public var range: ClipRange?
    /// True for a live stream (a dynamic MPD): `bytes`, `files` and `durationSeconds` are for one hour of
    /// recording, a live presentation having no length of its own. Always encoded (false for a title).
    public var perHourOfRecording: Bool?

    public init(
        url: String, bytes: Int64?, exact: Bool, files: Int, durationSeconds: Double, protection: TitleProtection?,
        perHourOfRecording: Bool? = nil
    ) {
        self.url = url
        self.bytes = bytes
        self.exact = exact
        self.files = files
        self.durationSeconds = durationSeconds
        self.protection = protection
        self.perHourOfRecording = perHourOfRecording
    }

    private enum CodingKeys: String, CodingKey {
        case url, bytes, exact, files, durationSeconds, protection, range, perHourOfRecording
    }

    /// Encodes a nil protection (and range) as JSON null so scripts see every key.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(url, forKey: .url)
        try c.encode(bytes, forKey: .bytes)
        try c.encode(exact, forKey: .exact)
        try c.encode(files, forKey: .files)
        try c.encode(durationSeconds, forKey: .durationSeconds)
        try c.encode(protection, forKey: .protection)
        try c.encode(range, forKey: .range)
        try c.encode(perHourOfRecording == true, forKey: .perHourOfRecording)
    }
}
