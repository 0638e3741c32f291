/// The offline plan of a title, produced by resolving its playlists: what to fetch, where to put it,
/// and the offline playlists to write once every file is verified.
public struct ResolvedPlan: Codable, Sendable, Equatable {
    /// The offline master playlist text (relative path `master.m3u8` in the title directory).
    public var masterPlaylist: String
    public var renditions: [PlannedRendition]
    public var resources: [PlannedResource]
    /// Estimated bytes (bandwidth × duration), nil when unknown.
    public var bytesEstimate: Int64?

    public init(masterPlaylist: String, renditions: [PlannedRendition], resources: [PlannedResource], bytesEstimate: Int64?) {
        self.masterPlaylist = masterPlaylist
        self.renditions = renditions
        self.resources = resources
        self.bytesEstimate = bytesEstimate
    }
}

/// One media playlist kept offline.
public struct PlannedRendition: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case video, audio, subtitles }
    public var kind: Kind
    public var sourceURL: String
    /// Path of the offline media playlist, relative to the title directory.
    public var localPath: String
    /// Offline media playlist text, URIs rewritten to local files.
    public var playlist: String
    public var language: String?

    public init(kind: Kind, sourceURL: String, localPath: String, playlist: String, language: String? = nil) {
        self.kind = kind
        self.sourceURL = sourceURL
        self.localPath = localPath
        self.playlist = playlist
        self.language = language
    }
}

/// One file of the offline copy.
public struct PlannedResource: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case segment, initSection = "init", subtitle }
    public var kind: Kind
    public var rendition: Int
    public var url: String
    public var rangeOffset: Int64?
    public var rangeLength: Int64?
    /// Path relative to the title directory.
    public var localPath: String
    public var container: Container
    public var encrypted: Bool
    public var duration: Double

    public init(kind: Kind, rendition: Int, url: String, rangeOffset: Int64?, rangeLength: Int64?,
                localPath: String, container: Container, encrypted: Bool, duration: Double) {
        self.kind = kind
        self.rendition = rendition
        self.url = url
        self.rangeOffset = rangeOffset
        self.rangeLength = rangeLength
        self.localPath = localPath
        self.container = container
        self.encrypted = encrypted
        self.duration = duration
    }
}
