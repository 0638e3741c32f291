import Foundation

/// Where one file (or part of one) is: alternative absolute URLs from several BaseURLs (first = preferred,
/// the others are fail-over copies of the same bytes) and an optional byte range.
public struct SegmentLocation: Sendable, Equatable, Codable {
    /// Never empty.
    public var urls: [String]
    public var range: SegmentByteRange?

    public init(urls: [String], range: SegmentByteRange? = nil) {
        self.urls = urls
        self.range = range
    }

    /// The preferred URL.
    public var url: String { urls.first ?? "" }
}

/// One media segment of a Representation.
public struct MediaSegment: Sendable, Equatable {
    public var location: SegmentLocation
    /// Seconds from the start of the Period.
    public var start: Double
    /// Seconds.
    public var duration: Double
    /// Duration in the Representation's timescale units.
    public var durationTicks: UInt64
    /// `$Number$` of the segment, when the addressing numbers segments.
    public var number: UInt64?
    /// Media time (`$Time$`) in timescale units.
    public var time: UInt64

    public init(
        location: SegmentLocation, start: Double, duration: Double, durationTicks: UInt64, number: UInt64?,
        time: UInt64
    ) {
        self.location = location
        self.start = start
        self.duration = duration
        self.durationTicks = durationTicks
        self.number = number
        self.time = time
    }
}

/// A Representation's segments in order, and its initialization segment.
public struct RepresentationSegments: Sendable, Equatable {
    public var initialization: SegmentLocation?
    /// Units per second of `MediaSegment.time` and `durationTicks`.
    public var timescale: UInt64
    public var presentationTimeOffset: UInt64
    public var segments: [MediaSegment]

    public init(
        initialization: SegmentLocation?, timescale: UInt64, presentationTimeOffset: UInt64 = 0,
        segments: [MediaSegment]
    ) {
        self.initialization = initialization
        self.timescale = timescale
        self.presentationTimeOffset = presentationTimeOffset
        self.segments = segments
    }

    /// Sum of the segment durations, seconds.
    public var duration: Double { segments.reduce(0) { $0 + $1.duration } }
}

/// A SegmentBase Representation whose segments are described by a `sidx` box: fetch `index` (a byte range of
/// the media file), then call `segments(fromSidx:)` with those bytes.
public struct IndexRequest: Sendable, Equatable {
    /// The index range of the media file (its URL alternatives are the media's).
    public var index: SegmentLocation
    public var initialization: SegmentLocation?
    /// `SegmentBase@timescale` (1 when absent) and `@presentationTimeOffset`, to place the first segment.
    public var timescale: UInt64
    public var presentationTimeOffset: UInt64
    /// The Period's length in seconds (see `MPDParser`), nil when the MPD does not tell: the `sidx` may describe
    /// more than the Period holds, and nothing past its end is fetched.
    public var periodDuration: Double?

    public init(
        index: SegmentLocation, initialization: SegmentLocation?, timescale: UInt64, presentationTimeOffset: UInt64,
        periodDuration: Double? = nil
    ) {
        self.index = index
        self.initialization = initialization
        self.timescale = timescale
        self.presentationTimeOffset = presentationTimeOffset
        self.periodDuration = periodDuration
    }

    /// The segments the `sidx` in `bytes` (the bytes of `index.range`) describes: byte ranges of the media file.
    public func segments(fromSidx bytes: [UInt8]) throws(DASHError) -> RepresentationSegments {
        let sidx = try SidxBox.parse(bytes, offset: index.range?.offset ?? 0)
        let scale = Double(sidx.timescale)
        var start =
            Double(sidx.earliestPresentationTime) / scale
            - Double(presentationTimeOffset) / Double(max(timescale, 1))
        var time = sidx.earliestPresentationTime
        var segments: [MediaSegment] = []
        for reference in sidx.references {
            // A subsegment that starts at the Period's end (half a millisecond of rounding aside) is not the Period's.
            if let end = periodDuration, start >= end - 0.000_5 { break }
            let ticks = UInt64(reference.duration)
            segments.append(
                MediaSegment(
                    location: SegmentLocation(urls: index.urls, range: reference.range), start: start,
                    duration: Double(ticks) / scale, durationTicks: ticks, number: nil, time: time))
            start += Double(ticks) / scale
            time = time.addingReportingOverflow(ticks).partialValue
        }
        // The last one kept ends with the Period (its bytes are fetched whole: a subsegment cannot be cut).
        if let end = periodDuration, let last = segments.last, last.start + last.duration > end {
            segments[segments.count - 1].duration = end - last.start
            segments[segments.count - 1].durationTicks = ticks((end - last.start) * scale)
        }
        let offset = ticks(Double(presentationTimeOffset) / Double(max(timescale, 1)) * scale)
        return RepresentationSegments(
            initialization: initialization, timescale: UInt64(sidx.timescale), presentationTimeOffset: offset,
            segments: segments)
    }

    /// `segments(fromSidx:)` for bytes held in `Data`.
    public func segments(fromSidx data: Data) throws(DASHError) -> RepresentationSegments {
        try segments(fromSidx: [UInt8](data))
    }
}

/// A Representation's addressing: its segments, or first the index to fetch (SegmentBase with `indexRange`).
public enum Addressing: Sendable, Equatable {
    case segments(RepresentationSegments)
    case needsIndex(IndexRequest)
}

/// `value` rounded to whole ticks, 0 for negative or non-finite values, clamped to what `UInt64` holds.
func ticks(_ value: Double) -> UInt64 {
    guard value.isFinite, value > 0 else { return 0 }
    let rounded = value.rounded()
    return rounded >= 18_446_744_073_709_549_568 ? UInt64.max : UInt64(rounded)
}
