/// What a dynamic (live) MPD says about time (ISO/IEC 23009-1 §5.3.1.2, DASH-IF IOP §4.3): when its segments
/// start to exist, how far back they stay, how often to reload it, where its live edge is, and how to read the
/// origin's clock. Absent on a static MPD.
public struct LiveTiming: Sendable, Equatable {
    /// `MPD@availabilityStartTime`, seconds since 1970 (origin clock): the anchor of every segment's availability.
    public var availabilityStartTime: Double
    /// `MPD@publishTime`: when this version of the MPD was made (nil when absent).
    public var publishTime: Double?
    /// `MPD@availabilityEndTime`: no segment is available after it (nil: no end announced).
    public var availabilityEndTime: Double?
    /// `MPD@timeShiftBufferDepth`, seconds: how long a segment stays available after its end (nil: for ever).
    public var timeShiftBufferDepth: Double?
    /// `MPD@minimumUpdatePeriod`, seconds: reload the MPD at least this often (nil: it will not change).
    public var minimumUpdatePeriod: Double?
    /// `MPD@suggestedPresentationDelay`, seconds behind the live edge a player should play (nil: not given).
    public var suggestedPresentationDelay: Double?
    /// The MPD's `UTCTiming` elements, in the order the origin prefers them.
    public var utcTimings: [UTCTiming]

    public init(
        availabilityStartTime: Double, publishTime: Double? = nil, availabilityEndTime: Double? = nil,
        timeShiftBufferDepth: Double? = nil, minimumUpdatePeriod: Double? = nil,
        suggestedPresentationDelay: Double? = nil, utcTimings: [UTCTiming] = []
    ) {
        self.availabilityStartTime = availabilityStartTime
        self.publishTime = publishTime
        self.availabilityEndTime = availabilityEndTime
        self.timeShiftBufferDepth = timeShiftBufferDepth
        self.minimumUpdatePeriod = minimumUpdatePeriod
        self.suggestedPresentationDelay = suggestedPresentationDelay
        self.utcTimings = utcTimings
    }

    /// The presentation time (seconds since `availabilityStartTime`) a player starting now would play: the live
    /// edge less `suggestedPresentationDelay`, else less `fallbackDelay` (the guidelines leave the default to the
    /// client; dash.js and Shaka Player use a few segment durations).
    public func liveEdge(now: Double, fallbackDelay: Double) -> Double {
        now - availabilityStartTime - (suggestedPresentationDelay ?? fallbackDelay)
    }

    static func parse(_ root: XMLNode) throws(DASHError) -> LiveTiming {
        guard let text = root.attribute("availabilityStartTime") else {
            throw DASHError.missing("MPD", "availabilityStartTime", "a dynamic MPD must say when its segments start")
        }
        let start = try dateTime(root, "availabilityStartTime", text)
        var timings: [UTCTiming] = []
        for node in root.children("UTCTiming").prefix(16) { timings.append(try UTCTiming.parse(node)) }
        return LiveTiming(
            availabilityStartTime: start,
            publishTime: try root.attribute("publishTime").map { t throws(DASHError) in
                try dateTime(root, "publishTime", t)
            },
            availabilityEndTime: try root.attribute("availabilityEndTime").map { t throws(DASHError) in
                try dateTime(root, "availabilityEndTime", t)
            },
            timeShiftBufferDepth: try root.duration("timeShiftBufferDepth"),
            minimumUpdatePeriod: try root.duration("minimumUpdatePeriod"),
            suggestedPresentationDelay: try root.duration("suggestedPresentationDelay"),
            utcTimings: timings)
    }

    private static func dateTime(_ root: XMLNode, _ attribute: String, _ text: String) throws(DASHError) -> Double {
        guard let seconds = XSDateTime.seconds(text) else {
            throw DASHError.invalid("MPD", attribute, text, "an xs:dateTime such as 2026-11-27T18:00:00Z")
        }
        return seconds
    }
}
