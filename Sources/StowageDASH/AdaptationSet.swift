/// One `AdaptationSet`: interchangeable Representations of one content component.
public struct AdaptationSet: Sendable, Equatable {
    /// What the set carries: `@contentType`, else the MIME type's top-level type, else the codecs.
    public enum ContentType: String, Sendable, Equatable, Codable {
        case video, audio, text, image, other
    }

    /// A descriptor element (`Role`, `EssentialProperty`, `Accessibility` …).
    public struct Descriptor: Sendable, Equatable {
        public var schemeIdUri: String
        public var value: String?

        public init(schemeIdUri: String, value: String? = nil) {
            self.schemeIdUri = schemeIdUri
            self.value = value
        }
    }

    public var id: String?
    public var contentType: ContentType
    public var mimeType: String?
    public var lang: String?
    public var label: String?
    public var codecs: String?
    public var roles: [Descriptor]
    public var essentialProperties: [Descriptor]
    public var supplementalProperties: [Descriptor]
    public var contentProtections: [ContentProtection]
    public var representations: [Representation]

    public init(
        id: String? = nil, contentType: ContentType, mimeType: String? = nil, lang: String? = nil,
        label: String? = nil, codecs: String? = nil, roles: [Descriptor] = [], essentialProperties: [Descriptor] = [],
        supplementalProperties: [Descriptor] = [], contentProtections: [ContentProtection] = [],
        representations: [Representation]
    ) {
        self.id = id
        self.contentType = contentType
        self.mimeType = mimeType
        self.lang = lang
        self.label = label
        self.codecs = codecs
        self.roles = roles
        self.essentialProperties = essentialProperties
        self.supplementalProperties = supplementalProperties
        self.contentProtections = contentProtections
        self.representations = representations
    }

    /// `Role` with value `main`.
    public var isMain: Bool { roles.contains { $0.value == "main" } }

    /// The DASH-IF descriptor of a trick-mode set; its value names the AdaptationSet it is the trick mode of.
    public static let trickModeScheme = "http://dashif.org/guidelines/trickmode"

    /// A trick-mode (fast-forward, I-frame only) set, which playback never selects as the main video. DASH-IF
    /// IOP signals it by EssentialProperty (players that do not know it skip the set) or SupplementalProperty.
    public var isTrickMode: Bool {
        (essentialProperties + supplementalProperties).contains { $0.schemeIdUri == Self.trickModeScheme }
    }

    /// The `@id` of the AdaptationSet this trick-mode set goes with (the descriptor's value), when it says.
    public var trickModeOf: String? {
        (essentialProperties + supplementalProperties).first { $0.schemeIdUri == Self.trickModeScheme }?.value
    }

    /// Infers the content type from `@contentType`, MIME types and codecs.
    static func inferType(contentType: String?, mimeTypes: [String], codecs: [String]) -> ContentType {
        if let contentType, let known = ContentType(rawValue: contentType.lowercased()) { return known }
        for mime in mimeTypes.map({ $0.lowercased() }) {
            if mime.hasPrefix("video/") { return .video }
            if mime.hasPrefix("audio/") { return .audio }
            if mime.hasPrefix("text/") || mime == "application/ttml+xml" { return .text }
            if mime.hasPrefix("image/") { return .image }
        }
        for codec in codecs.flatMap({ $0.lowercased().split(separator: ",") }) {
            let fourCC = codec.trimmed.prefix(4)
            if ["avc1", "avc3", "hvc1", "hev1", "vp09", "vp08", "av01", "dvh1", "dvhe"].contains(fourCC) {
                return .video
            }
            if ["mp4a", "ac-3", "ec-3", "ac-4", "opus", "flac", "dtsc", "dtsx"].contains(fourCC) { return .audio }
            if ["wvtt", "stpp"].contains(fourCC) { return .text }
        }
        return .other
    }
}
