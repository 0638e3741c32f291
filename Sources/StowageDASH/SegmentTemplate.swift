/// `SegmentTemplate`: segment URLs made from a template (`$Number$`, `$Time$`, …), with a fixed `duration`
/// or a `SegmentTimeline`. Every field is optional: a Representation's template is completed by the templates
/// of its AdaptationSet and Period.
public struct SegmentTemplate: Sendable, Equatable {
    public var media: String?
    /// The `initialization` attribute (a template without `$Number$`/`$Time$`).
    public var initialization: String?
    /// An `Initialization` child element, used when there is no `initialization` attribute.
    public var initializationElement: SegmentInitialization?
    public var startNumber: UInt64?
    public var endNumber: UInt64?
    public var timescale: UInt64?
    public var duration: UInt64?
    public var presentationTimeOffset: UInt64?
    public var timeline: SegmentTimeline?
    /// `@availabilityTimeOffset`, seconds: a live segment may be asked for this much before it is complete (chunked
    /// low-latency origins); `.infinity` for `INF`.
    public var availabilityTimeOffset: Double?

    public init(
        media: String? = nil, initialization: String? = nil, initializationElement: SegmentInitialization? = nil,
        startNumber: UInt64? = nil, endNumber: UInt64? = nil, timescale: UInt64? = nil, duration: UInt64? = nil,
        presentationTimeOffset: UInt64? = nil, timeline: SegmentTimeline? = nil, availabilityTimeOffset: Double? = nil
    ) {
        self.media = media
        self.initialization = initialization
        self.initializationElement = initializationElement
        self.startNumber = startNumber
        self.endNumber = endNumber
        self.timescale = timescale
        self.duration = duration
        self.presentationTimeOffset = presentationTimeOffset
        self.timeline = timeline
        self.availabilityTimeOffset = availabilityTimeOffset
    }

    /// This element's attributes, completed by those of the same element one level up (the child wins).
    func inheriting(_ parent: SegmentTemplate?) -> SegmentTemplate {
        guard let parent else { return self }
        return SegmentTemplate(
            media: media ?? parent.media,
            initialization: initialization ?? parent.initialization,
            initializationElement: initializationElement ?? parent.initializationElement,
            startNumber: startNumber ?? parent.startNumber,
            endNumber: endNumber ?? parent.endNumber,
            timescale: timescale ?? parent.timescale,
            duration: duration ?? parent.duration,
            presentationTimeOffset: presentationTimeOffset ?? parent.presentationTimeOffset,
            timeline: timeline ?? parent.timeline,
            availabilityTimeOffset: availabilityTimeOffset ?? parent.availabilityTimeOffset)
    }

    static func parse(_ node: XMLNode) throws(DASHError) -> SegmentTemplate {
        SegmentTemplate(
            media: node.attribute("media"),
            initialization: node.attribute("initialization"),
            initializationElement: try SegmentInitialization.parse(node.child("Initialization")),
            startNumber: try node.unsigned("startNumber"),
            endNumber: try node.unsigned("endNumber"),
            timescale: try node.positive("timescale"),
            duration: try node.positive("duration"),
            presentationTimeOffset: try node.unsigned("presentationTimeOffset"),
            timeline: try node.child("SegmentTimeline").map { n throws(DASHError) in try SegmentTimeline.parse(n) },
            availabilityTimeOffset: try availabilityTimeOffset(node))
    }

    /// `@availabilityTimeOffset`: a non-negative `xs:double` or `INF`.
    static func availabilityTimeOffset(_ node: XMLNode) throws(DASHError) -> Double? {
        guard let text = node.attribute("availabilityTimeOffset") else { return nil }
        if text == "INF" { return .infinity }
        guard let value = Double(text), value.isFinite, value >= 0 else {
            throw DASHError.invalid(
                node.name, "availabilityTimeOffset", text, "a number of seconds of 0 or more, or INF")
        }
        return value
    }
}
