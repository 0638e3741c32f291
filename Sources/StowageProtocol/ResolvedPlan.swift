import Foundation

/// The offline plan of a title, produced by resolving its playlists: what to fetch, where to put it,
/// and the offline playlists to write once every file is verified.
public struct ResolvedPlan: Codable, Sendable, Equatable {
    /// The offline master playlist text (relative path `master.m3u8` in the title directory).
    public var masterPlaylist: String
    public var renditions: [PlannedRendition]
    public var resources: [PlannedResource]
    /// Estimated bytes (bandwidth × duration), nil when unknown.
    public var bytesEstimate: Int64?
    /// Content keys the media needs (`EXT-X-KEY` AES-128 / SAMPLE-AES, identity format), index = position.
    /// Offline playlists name key `n` as `/keys/n`, served only by `stowctl play` while the license allows.
    public var keys: [PlannedKey]
    /// Index bookmarks that come with the source (`EXT-X-DATERANGE` with a `PROGRAM-DATE-TIME` timeline).
    public var bookmarks: [Bookmark]
    /// File name of `masterPlaylist` in the title directory: `manifest.mpd` for DASH; nil = `master.m3u8`.
    public var manifestName: String?
    /// How the media is protected; nil when it is not encrypted.
    public var protection: TitleProtection?
    /// The class of the source's address when the resolve found it (the task had no reach yet): stored with the
    /// title, so a source that later resolves elsewhere does not widen what its playlists may name.
    public var reach: AddressClass?
    /// A plan taken from a peer box's manifest (`submit --from-peer`): the title's origin source and name there.
    /// Its files carry the peer's SHA-256 (``PlannedResource/peerSHA256``).
    public var peer: PeerTitle?
    /// A clip (`submit --range`): the span its video rendition keeps, seconds from the title's start, on segment
    /// boundaries (what `status --json` reports as `range`); nil for a whole title.
    public var clip: ClipRange?
    /// The places its files come from, in the order they are tried (each resource's `url`, then its
    /// `alternates`); nil when there is one.
    public var pathways: [PlannedPathway]?

    public init(
        masterPlaylist: String, renditions: [PlannedRendition], resources: [PlannedResource], bytesEstimate: Int64?,
        keys: [PlannedKey] = [], bookmarks: [Bookmark] = [], manifestName: String? = nil,
        protection: TitleProtection? = nil
    ) {
        self.manifestName = manifestName
        self.protection = protection
        self.masterPlaylist = masterPlaylist
        self.renditions = renditions
        self.resources = resources
        self.bytesEstimate = bytesEstimate
        self.keys = keys
        self.bookmarks = bookmarks
    }
}

/// A position in a title, seconds from its start.
public struct Bookmark: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case user, index }
    public var position: Double
    public var label: String
    public var kind: Kind

    public init(position: Double, label: String, kind: Kind = .index) {
        self.position = position
        self.label = label
        self.kind = kind
    }
}

/// A content key to acquire: from its key URI (HLS key delivery), or from a W3C Clear Key license
/// server at that URI (`keyFormat` "org.w3.clearkey", with its `keyID`).
public struct PlannedKey: Codable, Sendable, Equatable {
    /// Absolute key URI (with its query string).
    public var uri: String
    public var method: String
    public var keyFormat: String?
    /// `KEYID` as in the playlist (hex, `0x…`).
    public var keyID: String?

    public init(uri: String, method: String, keyFormat: String? = nil, keyID: String? = nil) {
        self.uri = uri
        self.method = method
        self.keyFormat = keyFormat
        self.keyID = keyID
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
    public enum Kind: String, Codable, Sendable {
        case segment
        case initSection = "init"
        case subtitle, poster
        /// A file the box writes itself when the title completes: `subtitles/<lang>.vtt` or `.srt`, converted
        /// from the title's subtitle files by an integrity worker. Never fetched, never in a plan for another box.
        case subtitleText = "subtitle-text"
        /// A file the box writes itself when the title completes: `title.mp4` or `title.mkv` (`submit --file`),
        /// remuxed from the verified offline copy by an integrity worker. Never fetched, in no plan for another box.
        case singleFile = "single-file"

        /// A file the box writes itself (its subtitles as text, its single file): it has no source URL, so it is
        /// written again rather than fetched, left out of peers' manifests and bundles, and of streaming play.
        public var isWrittenByBox: Bool { self == .subtitleText || self == .singleFile }
    }
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
    /// Other URLs of the same bytes (DASH: several BaseURLs), tried in order when `url` fails.
    public var alternates: [String]?
    /// For a whole-segment ciphertext (`encrypted`): its key and IV, so the container can be checked decrypted.
    public var cipher: SegmentCipher?
    /// In a plan from a peer box: the SHA-256 (hex) of the peer's verified copy, which the file is fetched from;
    /// nil: the peer lacks it, the file comes from `url`.
    public var peerSHA256: String?

    public init(
        kind: Kind, rendition: Int, url: String, rangeOffset: Int64?, rangeLength: Int64?,
        localPath: String, container: Container, encrypted: Bool, duration: Double
    ) {
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

/// A place a title's files come from (an HLS pathway or redundant copy, a DASH BaseURL): its name and the origins
/// (`scheme://host[:port]`) of the files it serves, so `status` can say which one served.
public struct PlannedPathway: Codable, Sendable, Equatable {
    public var name: String
    public var origins: [String]

    public init(name: String, origins: [String]) {
        self.name = name
        self.origins = origins
    }

    /// `scheme://host[:port]` of `url`; nil when it has none.
    public static func origin(of url: String) -> String? {
        guard let u = URL(string: url), let scheme = u.scheme, let host = u.host else { return nil }
        return "\(scheme.lowercased())://\(host.lowercased())" + (u.port.map { ":\($0)" } ?? "")
    }

    /// `host[:port]` of an ``origin(of:)``: what names a place that has no name of its own.
    public static func host(ofOrigin origin: String) -> String {
        origin.components(separatedBy: "://").last ?? origin
    }

    /// The name of the first of `pathways` that serves from `url`'s origin, else that origin's host.
    public static func name(serving url: String, in pathways: [PlannedPathway]) -> String {
        let origin = Self.origin(of: url) ?? url
        if let pathway = pathways.first(where: { $0.origins.contains(origin) }) { return pathway.name }
        return host(ofOrigin: origin)
    }
}
