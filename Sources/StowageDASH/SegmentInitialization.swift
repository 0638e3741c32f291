/// An `Initialization` (or `RepresentationIndex`) element: a URL (nil = the Representation's BaseURL) and an
/// optional byte range of it.
public struct SegmentInitialization: Sendable, Equatable {
    public var sourceURL: String?
    public var range: SegmentByteRange?

    public init(sourceURL: String? = nil, range: SegmentByteRange? = nil) {
        self.sourceURL = sourceURL
        self.range = range
    }

    static func parse(_ node: XMLNode?) throws(DASHError) -> SegmentInitialization? {
        guard let node else { return nil }
        return SegmentInitialization(sourceURL: node.attribute("sourceURL"), range: try node.byteRange("range"))
    }
}
