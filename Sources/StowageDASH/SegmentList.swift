/// `SegmentList`: segments listed one by one (`SegmentURL@media` / `@mediaRange`).
public struct SegmentList: Sendable, Equatable {
    /// One `SegmentURL`: a URL (nil = the Representation's BaseURL) and an optional byte range of it.
    public struct Item: Sendable, Equatable {
        public var media: String?
        public var mediaRange: SegmentByteRange?

        public init(media: String? = nil, mediaRange: SegmentByteRange? = nil) {
            self.media = media
            self.mediaRange = mediaRange
        }
    }

    public var timescale: UInt64?
    public var duration: UInt64?
    public var startNumber: UInt64?
    public var presentationTimeOffset: UInt64?
    public var initialization: SegmentInitialization?
    public var timeline: SegmentTimeline?
    /// Empty when this level lists none (a parent's list is then used).
    public var items: [Item]

    public init(
        timescale: UInt64? = nil, duration: UInt64? = nil, startNumber: UInt64? = nil,
        presentationTimeOffset: UInt64? = nil, initialization: SegmentInitialization? = nil,
        timeline: SegmentTimeline? = nil, items: [Item] = []
    ) {
        self.timescale = timescale
        self.duration = duration
        self.startNumber = startNumber
        self.presentationTimeOffset = presentationTimeOffset
        self.initialization = initialization
        self.timeline = timeline
        self.items = items
    }

    /// This element's attributes, completed by those of the same element one level up (the child wins).
    func inheriting(_ parent: SegmentList?) -> SegmentList {
        guard let parent else { return self }
        return SegmentList(
            timescale: timescale ?? parent.timescale,
            duration: duration ?? parent.duration,
            startNumber: startNumber ?? parent.startNumber,
            presentationTimeOffset: presentationTimeOffset ?? parent.presentationTimeOffset,
            initialization: initialization ?? parent.initialization,
            timeline: timeline ?? parent.timeline,
            items: items.isEmpty ? parent.items : items)
    }

    static func parse(_ node: XMLNode) throws(DASHError) -> SegmentList {
        var items: [Item] = []
        for url in node.children("SegmentURL") {
            items.append(Item(media: url.attribute("media"), mediaRange: try url.byteRange("mediaRange")))
        }
        return SegmentList(
            timescale: try node.positive("timescale"),
            duration: try node.positive("duration"),
            startNumber: try node.unsigned("startNumber"),
            presentationTimeOffset: try node.unsigned("presentationTimeOffset"),
            initialization: try SegmentInitialization.parse(node.child("Initialization")),
            timeline: try node.child("SegmentTimeline").map { n throws(DASHError) in try SegmentTimeline.parse(n) },
            items: items)
    }
}
