import Foundation

/// A parsed MPEG-DASH Media Presentation Description (ISO/IEC 23009-1): static, or dynamic (live) when read with
/// ``init(liveData:url:)``.
public struct MPD: Sendable, Equatable {
    public enum PresentationType: String, Sendable, Equatable {
        case `static`, dynamic
    }

    /// The URL the MPD was fetched from (the base of relative BaseURLs).
    public var url: String
    public var type: PresentationType
    /// Seconds, from `@mediaPresentationDuration`.
    public var mediaPresentationDuration: Double?
    public var minBufferTime: Double?
    public var profiles: String?
    /// Absolute MPD-level BaseURL alternatives (the MPD's own URL when there is none).
    public var baseURLs: [String]
    /// The MPD's and its first Period's `BaseURL`s (resolved) with their `serviceLocation`s: the places the
    /// title's files come from, named for `status` (see ``DASHPathways``).
    public var serviceLocations: [ServiceLocation] = []

    /// A `BaseURL` of the MPD or its Period, resolved, and its `serviceLocation`.
    public struct ServiceLocation: Sendable, Equatable {
        public var url: String
        public var name: String?
    }
    public var periods: [Period]
    /// A dynamic MPD's timing (`availabilityStartTime`, `timeShiftBufferDepth`, `UTCTiming`, …); nil when static.
    public var live: LiveTiming?

    public init(
        url: String, type: PresentationType = .static, mediaPresentationDuration: Double?, minBufferTime: Double? = nil,
        profiles: String? = nil, baseURLs: [String], periods: [Period], live: LiveTiming? = nil
    ) {
        self.url = url
        self.type = type
        self.mediaPresentationDuration = mediaPresentationDuration
        self.minBufferTime = minBufferTime
        self.profiles = profiles
        self.baseURLs = baseURLs
        self.periods = periods
        self.live = live
    }

    /// Parses an MPD fetched from `url`. Refuses XML that is not an MPD, dynamic (live) MPDs (code `dynamic`),
    /// and malformed elements, naming the element and attribute.
    public init(data: Data, url: String) throws(DASHError) {
        self = try MPDParser.parse(data, url: url)
    }

    /// Parses an MPD a recording reloads: static or dynamic. A dynamic one must have `availabilityStartTime`; its
    /// timing is in ``live``.
    public init(liveData data: Data, url: String) throws(DASHError) {
        self = try MPDParser.parse(data, url: url, allowDynamic: true)
    }

    /// Parses MPD text fetched from `url`.
    public init(text: String, url: String) throws(DASHError) {
        self = try MPDParser.parse(Data(text.utf8), url: url)
    }

    /// The presentation's length in seconds: `mediaPresentationDuration`, else the end of the last Period.
    public var duration: Double? {
        if let mediaPresentationDuration { return mediaPresentationDuration }
        guard let last = periods.last, let length = last.duration else { return nil }
        return last.start + length
    }
}
