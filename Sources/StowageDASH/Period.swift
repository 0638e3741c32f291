/// One `Period` of a static presentation.
public struct Period: Sendable, Equatable {
    public var id: String?
    /// Seconds from the start of the presentation (`@start`, else where the previous Period ended).
    public var start: Double
    /// Seconds: `@duration`, else up to the next Period's start, else up to `mediaPresentationDuration`, and never
    /// past the next Period's start or `mediaPresentationDuration` (its segments stop there);
    /// nil when the MPD does not tell.
    public var duration: Double?
    /// Absolute BaseURL alternatives at this level (the MPD's, refined by the Period's own).
    public var baseURLs: [String]
    public var adaptationSets: [AdaptationSet]

    public init(id: String?, start: Double, duration: Double?, baseURLs: [String], adaptationSets: [AdaptationSet]) {
        self.id = id
        self.start = start
        self.duration = duration
        self.baseURLs = baseURLs
        self.adaptationSets = adaptationSets
    }
}
