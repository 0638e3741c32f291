/// `SegmentBase`: one media file whose segments an index (`sidx`, at `indexRange`) describes.
public struct SegmentBase: Sendable, Equatable {
    public var timescale: UInt64?
    public var presentationTimeOffset: UInt64?
    /// Where the `sidx` box is (nil: the whole file is one segment).
    public var indexRange: SegmentByteRange?
    public var initialization: SegmentInitialization?

    public init(
        timescale: UInt64? = nil, presentationTimeOffset: UInt64? = nil, indexRange: SegmentByteRange? = nil,
        initialization: SegmentInitialization? = nil
    ) {
        self.timescale = timescale
        self.presentationTimeOffset = presentationTimeOffset
        self.indexRange = indexRange
        self.initialization = initialization
    }

    /// This element's attributes, completed by those of the same element one level up.
    func inheriting(_ parent: SegmentBase?) -> SegmentBase {
        guard let parent else { return self }
        return SegmentBase(
            timescale: timescale ?? parent.timescale,
            presentationTimeOffset: presentationTimeOffset ?? parent.presentationTimeOffset,
            indexRange: indexRange ?? parent.indexRange,
            initialization: initialization ?? parent.initialization)
    }

    static func parse(_ node: XMLNode) throws(DASHError) -> SegmentBase {
        SegmentBase(
            timescale: try node.positive("timescale"),
            presentationTimeOffset: try node.unsigned("presentationTimeOffset"),
            indexRange: try node.byteRange("indexRange"),
            initialization: try SegmentInitialization.parse(node.child("Initialization")))
    }
}
