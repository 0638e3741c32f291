import StowageProtocol

/// One Representation of a live DASH recording between two reloads of its MPD: which Representation it is, how far
/// it has been taken and where its local timeline stands. Stored with the rendition (as JSON), as HLS's
/// `LiveRendition` is, so a restarted scheduler carries on from the last segment taken.
public struct LiveDASHRendition: Codable, Sendable, Equatable {
    /// Folder of the track in the title directory (`p0/video-0-1`, …).
    public var folder: String
    public var kind: PlannedRendition.Kind
    /// The Period recorded: its `@id` (nil: none was given, then its index) and index at plan time.
    public var periodID: String?
    public var periodIndex: Int
    /// The AdaptationSet's index in the Period and the Representation's `@id`.
    public var adaptationSet: Int
    public var representationID: String
    /// `$Number$` of the last segment taken (or left as a gap); nil before the first.
    public var lastNumber: UInt64?
    /// Media time (timescale units) where the next segment is expected to start.
    public var nextTime: UInt64?
    /// Media time of the first segment taken: the local MPD's `@presentationTimeOffset`, so the copy starts at 0.
    public var firstTime: UInt64?
    /// Local media files written so far (the next is `seg-<count + 1>`).
    public var count = 0
    /// Seconds of the recording's timeline taken so far (segments and gaps).
    public var seconds: Double = 0
    /// How often to reload the MPD: a segment's duration, or `minimumUpdatePeriod` when shorter.
    public var targetDuration: Double = 2
    /// `MPD@availabilityStartTime` last seen: an MPD that turned static keeps the timing it had.
    public var availabilityStartTime: Double?
    /// Nothing more is taken: the Period or the presentation ended, the duration was reached, or it was stopped.
    public var ended = false
    /// The timing last seen, for how long a listed segment stays available (``availableUntil(line:)``): the
    /// window, the Period's start, the template's `@presentationTimeOffset` and timescale. Nil in states stored
    /// before they were kept (such a segment is not retried).
    public var timeShiftBufferDepth: Double?
    public var periodStart: Double?
    public var presentationTimeOffset: UInt64?
    public var timescale: UInt64?
    /// The origin's clock less the box's at the last reload, seconds: a box minutes off still knows when a segment
    /// leaves the origin's window.
    public var clockOffset: Double?
    /// Which recorded Period this is (0 the first; nil in states stored before recordings had several): its
    /// files are under `p<n>/` and its Period is the n-th of the local manifest.
    public var recordedPeriod: Int?
    /// Seconds of the recording before this Period began (the earlier Periods' timelines, gaps included): where
    /// its timeline starts in `status.gaps` and in the local manifest, and what `--duration` counts on from.
    public var secondsBefore: Double?
    /// It ended only because its Period did (the Period got an end and every segment of it was taken, or it
    /// left the MPD): the recording goes on with the next Period unless the MPD says the presentation ended.
    public var periodEnded: Bool?

    /// ``recordedPeriod``, 0 when not stored.
    public var ordinal: Int { recordedPeriod ?? 0 }
    /// Where the rendition's timeline ends in the recording's, seconds.
    public var recordingSeconds: Double { (secondsBefore ?? 0) + seconds }

    public init(
        folder: String, kind: PlannedRendition.Kind, periodID: String?, periodIndex: Int, adaptationSet: Int,
        representationID: String
    ) {
        self.folder = folder
        self.kind = kind
        self.periodID = periodID
        self.periodIndex = periodIndex
        self.adaptationSet = adaptationSet
        self.representationID = representationID
    }
}
