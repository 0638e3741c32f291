import StowageProtocol

/// One `Representation`, with what it inherits from its AdaptationSet and Period already applied.
public struct Representation: Sendable, Equatable {
    /// How the Representation's segments are addressed, after inheritance (the most specific kind wins and is
    /// completed by the same kind at the levels above).
    public enum SegmentInformation: Sendable, Equatable {
        case template(SegmentTemplate)
        case base(SegmentBase)
        case list(SegmentList)
        /// No segment information: the BaseURL is the whole media, one segment.
        case none
    }

    public var id: String
    /// Bits per second.
    public var bandwidth: Int
    public var width: Int?
    public var height: Int?
    public var codecs: String?
    public var mimeType: String?
    public var frameRate: String?
    /// The video's dynamic range, from the CICP transfer characteristics descriptor of the Representation or its
    /// AdaptationSet (absent: SDR).
    public var videoRange: VideoRange = .sdr
    /// The audio channel count from `AudioChannelConfiguration` (the Representation's, else its AdaptationSet's);
    /// nil when absent or of a scheme not understood.
    public var audioChannels: Int?
    /// Absolute URLs from the BaseURLs of every level, in fail-over order (first = preferred). Without any
    /// BaseURL this is the MPD's own URL.
    public var baseURLs: [String]
    public var segmentInformation: SegmentInformation
    /// The AdaptationSet's ContentProtection elements followed by the Representation's own.
    public var contentProtections: [ContentProtection]

    public init(
        id: String, bandwidth: Int, width: Int? = nil, height: Int? = nil, codecs: String? = nil,
        mimeType: String? = nil, frameRate: String? = nil, baseURLs: [String],
        segmentInformation: SegmentInformation, contentProtections: [ContentProtection] = []
    ) {
        self.id = id
        self.bandwidth = bandwidth
        self.width = width
        self.height = height
        self.codecs = codecs
        self.mimeType = mimeType
        self.frameRate = frameRate
        self.baseURLs = baseURLs
        self.segmentInformation = segmentInformation
        self.contentProtections = contentProtections
    }
}
