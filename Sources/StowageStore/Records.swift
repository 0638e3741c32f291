import Foundation
import GRDB
import StowageLicensing
import StowageProtocol

/// A title row: one submitted download.
public struct TitleRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "title"
    public var token: String
    public var url: String
    public var name: String?
    public var state: TitleState
    public var priority: Int
    /// The user's selection (a JSON column).
    public var selection: Selection
    /// The request headers (a JSON column).
    public var headers: [Header]
    public var requestedAt: Double
    public var startedAt: Double?
    public var endedAt: Double?
    public var errorCode: String?
    public var errorMessage: String?
    public var bytesEstimate: Int64?
    /// The offline master playlist text (empty when the source was a media playlist).
    public var masterPlaylist: String?
    /// Path of the offline entry playlist, relative to the title directory, once completed.
    public var localPlaylist: String?
    /// Whether the plan (renditions and resources) is stored.
    public var planned: Bool
    /// Plays authorised so far, and when the first one was.
    public var playCount: Int = 0
    public var firstPlayedAt: Double?
    /// The granted terms in force (a JSON column; nil until licensed).
    public var licenseTerms: LicenseTerms?
    /// The terms the user asked for (a JSON column).
    public var requestedTerms: RequestedTerms?
    public var licenseURL: String?
    /// The last renewal's failure (the title keeps its state).
    public var licenseError: String?
    /// The clock epoch when the license was granted (a clock rollback starts a new epoch).
    public var licenseEpoch: Int = 0
    /// Media actually played, seconds.
    public var playedSeconds: Double = 0
    /// Preloaded: license only until a submit of the same URL.
    public var preloadOnly: Bool = false
    /// A poster / thumbnail fetched with the title.
    public var posterURL: String?
    /// Why a suspended title waits (nil for titles suspended before v7: `disk-full` when `errorCode` says so,
    /// else `paused`).
    public var suspendedReason: SuspendedReason?
    /// When it was suspended (wall clock, for `status`).
    public var suspendedAt: Double?
    /// `host:port` whose return the title waits for (network suspension or a renewal that could not reach it).
    public var waitingHost: String?
    /// The request of a recording (`submit --record`; a JSON column); nil for any other title.
    public var record: RecordRequest?
    /// When the recording ended (stream end, duration reached, or `stowctl stop`); nil while it records.
    public var recordingEndedAt: Double?
    /// The caller-chosen unique id (`submit --id`).
    public var externalID: String?
    /// File name of the offline entry manifest when it is not `master.m3u8` (DASH: `manifest.mpd`).
    public var manifestName: String?
    /// The media's protection (a JSON column; nil: not encrypted).
    public var protection: TitleProtection?
    /// `submit --allow-device-drm`: download even if only a device's DRM can play it.
    public var allowDeviceDRM: Bool = false
    /// The class of the source URL's address, found at the first resolve: how far in its files may lie.
    public var reach: AddressClass?
    /// Hosts besides the URL's that get the submitted headers (`submit --header-host`).
    public var headerHosts: [String]?
    /// `submit --key`: the operator's content keys by key ID (hex), each wrapped under the master key (bound to the
    /// title and key ID) until the plan says which key index each is; nil for titles licensed any other way.
    public var operatorKeys: [String: Data]?
    /// `stowctl export --move`: the id of the box the license was moved to (an empty string when the bundle named
    /// no box). This copy is never playable again: the license lives on the other box, so plays are not doubled.
    public var transferredTo: String?
    /// `submit --from-peer`: the peer box whose gateway the title's files come from; its `secret` is kept wrapped
    /// under the master key (base64), never in the clear.
    public var peer: PeerSource?
    /// `submit --window`: the title's own fill windows (a `FillSchedule`'s text); nil: the box's `--fill-window`.
    public var fillWindow: String?
    /// `submit --now` (or a catalogue's `"urgent"`): fetched whatever the windows say.
    public var fetchNow: Bool = false
    /// When a device last played it (a play authorised or play time reported; wall clock): the quota evicts the
    /// least recently played title first.
    public var lastPlayedAt: Double?
    /// `stowctl pin`: the quota never evicts it.
    public var pinned: Bool = false
    /// `submit --range`: the span asked for (a JSON column; nil: the whole title). Part of the title's options.
    public var clipRange: ClipRange?
    /// The span a clip's plan keeps (its video's segment boundaries; a JSON column), what `status` reports.
    public var clipStored: ClipRange?
    /// The places its files come from, in the order tried (a JSON column; nil: one place).
    public var pathways: [PlannedPathway]?
    /// The pathway that served its latest file, when it was not the first.
    public var pathway: String?
    /// `submit --file mp4|mkv` (or a catalogue's `file`): the box writes `title.mp4`/`title.mkv` when it
    /// completes. Part of the title's options.
    public var singleFile: SingleFileFormat?

    /// A new title, not planned yet.
    public init(
        token: String, url: String, name: String?, state: TitleState, priority: Int, selection: Selection,
        headers: [Header], requestedAt: Double
    ) {
        self.token = token
        self.url = url
        self.name = name
        self.state = state
        self.priority = priority
        self.selection = selection
        self.headers = headers
        self.requestedAt = requestedAt
        self.planned = false
    }

    /// The JSON columns hold what a plain `JSONEncoder` writes, as the scheduler wrote them by hand before they
    /// were typed, so the stored JSON is what older versions wrote and read. (GRDB's default encoder would sort the
    /// keys and write dates as milliseconds.)
    public static func databaseJSONEncoder(for column: String) -> JSONEncoder { JSONEncoder() }

    /// The plain `JSONDecoder` the columns were always read with.
    public static func databaseJSONDecoder(for column: String) -> JSONDecoder { JSONDecoder() }

    /// The title table's columns, for the query interface.
    public enum Columns {
        public static let token = Column(CodingKeys.token)
        public static let url = Column(CodingKeys.url)
        public static let name = Column(CodingKeys.name)
        public static let state = Column(CodingKeys.state)
        public static let priority = Column(CodingKeys.priority)
        public static let selection = Column(CodingKeys.selection)
        public static let headers = Column(CodingKeys.headers)
        public static let requestedAt = Column(CodingKeys.requestedAt)
        public static let startedAt = Column(CodingKeys.startedAt)
        public static let endedAt = Column(CodingKeys.endedAt)
        public static let errorCode = Column(CodingKeys.errorCode)
        public static let errorMessage = Column(CodingKeys.errorMessage)
        public static let bytesEstimate = Column(CodingKeys.bytesEstimate)
        public static let masterPlaylist = Column(CodingKeys.masterPlaylist)
        public static let localPlaylist = Column(CodingKeys.localPlaylist)
        public static let planned = Column(CodingKeys.planned)
        public static let playCount = Column(CodingKeys.playCount)
        public static let firstPlayedAt = Column(CodingKeys.firstPlayedAt)
        public static let licenseTerms = Column(CodingKeys.licenseTerms)
        public static let requestedTerms = Column(CodingKeys.requestedTerms)
        public static let licenseURL = Column(CodingKeys.licenseURL)
        public static let licenseError = Column(CodingKeys.licenseError)
        public static let licenseEpoch = Column(CodingKeys.licenseEpoch)
        public static let playedSeconds = Column(CodingKeys.playedSeconds)
        public static let preloadOnly = Column(CodingKeys.preloadOnly)
        public static let posterURL = Column(CodingKeys.posterURL)
        public static let suspendedReason = Column(CodingKeys.suspendedReason)
        public static let suspendedAt = Column(CodingKeys.suspendedAt)
        public static let waitingHost = Column(CodingKeys.waitingHost)
        public static let record = Column(CodingKeys.record)
        public static let recordingEndedAt = Column(CodingKeys.recordingEndedAt)
        public static let externalID = Column(CodingKeys.externalID)
        public static let reach = Column(CodingKeys.reach)
    }
}

/// A media playlist kept offline.
public struct RenditionRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "rendition"
    public var id: Int64?
    public var token: String
    public var position: Int
    public var kind: PlannedRendition.Kind
    public var sourceURL: String
    public var localPath: String
    public var playlist: String
    public var language: String?
    /// A recording's rendition: JSON of its `LiveRendition` (what the reloads took so far); nil otherwise.
    public var live: String?

    /// Takes the row id SQLite assigned.
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// The rendition table's columns, for the query interface.
    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let token = Column(CodingKeys.token)
        public static let position = Column(CodingKeys.position)
        public static let kind = Column(CodingKeys.kind)
        public static let sourceURL = Column(CodingKeys.sourceURL)
        public static let localPath = Column(CodingKeys.localPath)
        public static let playlist = Column(CodingKeys.playlist)
        public static let language = Column(CodingKeys.language)
        public static let live = Column(CodingKeys.live)
    }
}

/// The states a resource (segment, init section, subtitle file) moves through.
public enum ResourceState: String, Codable, Sendable, CaseIterable {
    /// Not on disk yet (or must be fetched again).
    case pending
    /// A fetch lease is out.
    case fetching
    /// On disk; waiting for verification.
    case fetched
    /// A verify lease is out.
    case verifying
    /// On disk and verified: never fetched again.
    case verified
    /// Never stored: a segment of a recording that left the live window before it could be fetched (or
    /// one the source marked `EXT-X-GAP`). The offline playlist keeps its place as an `EXT-X-GAP` entry.
    case gap
}

/// One file of a title's offline copy.
public struct ResourceRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "resource"
    public var id: Int64?
    public var token: String
    public var position: Int
    public var rendition: Int
    public var kind: PlannedResource.Kind
    public var url: String
    public var rangeOffset: Int64?
    public var rangeLength: Int64?
    public var localPath: String
    public var container: Container
    public var encrypted: Bool
    public var duration: Double
    public var state: ResourceState
    public var attempts: Int
    public var bytes: Int64?
    public var sha256: String?
    public var contentLength: Int64?
    public var lastError: String?
    /// Other URLs of the same bytes (DASH: several BaseURLs), tried in order when `url` fails.
    public var alternates: [String]? = nil
    /// The key and IV of a whole-segment ciphertext (nil: clear, opaque, or planned before they were kept).
    public var cipher: SegmentCipher? = nil
    /// A title filled from a peer: the SHA-256 of the peer's copy, while the file is taken from the peer (what it
    /// delivers must hash to it); nil: the file comes from `url` (the origin).
    public var peerSHA256: String? = nil

    /// Takes the row id SQLite assigned.
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// The resource table's columns, for the query interface.
    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let token = Column(CodingKeys.token)
        public static let position = Column(CodingKeys.position)
        public static let rendition = Column(CodingKeys.rendition)
        public static let kind = Column(CodingKeys.kind)
        public static let url = Column(CodingKeys.url)
        public static let rangeOffset = Column(CodingKeys.rangeOffset)
        public static let rangeLength = Column(CodingKeys.rangeLength)
        public static let localPath = Column(CodingKeys.localPath)
        public static let container = Column(CodingKeys.container)
        public static let encrypted = Column(CodingKeys.encrypted)
        public static let duration = Column(CodingKeys.duration)
        public static let state = Column(CodingKeys.state)
        public static let attempts = Column(CodingKeys.attempts)
        public static let bytes = Column(CodingKeys.bytes)
        public static let sha256 = Column(CodingKeys.sha256)
        public static let contentLength = Column(CodingKeys.contentLength)
        public static let lastError = Column(CodingKeys.lastError)
        /// Newline-separated URLs.
        public static let alternates = Column(CodingKeys.alternates)
        /// ``SegmentCipher/key``, and its IV (hex).
        public static let cipherKey = Column("cipherKey")
        public static let cipherIV = Column("cipherIV")
        public static let peerSHA256 = Column(CodingKeys.peerSHA256)
    }
}

/// Something that happened to a title, kept for `status` history and operators.
public struct EventRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "event"
    public var id: Int64?
    public var token: String
    public var at: Double
    public var kind: String
    public var detail: String

    /// A new event (its id is assigned on insertion).
    public init(token: String, at: Double, kind: String, detail: String) {
        self.token = token
        self.at = at
        self.kind = kind
        self.detail = detail
    }

    /// Takes the row id SQLite assigned.
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// The event table's columns, for the query interface.
    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let token = Column(CodingKeys.token)
        public static let at = Column(CodingKeys.at)
        public static let kind = Column(CodingKeys.kind)
        public static let detail = Column(CodingKeys.detail)
    }
}

/// A content key of a title, wrapped with the master key (never stored in the clear).
public struct ContentKeyRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "contentKey"
    public var token: String
    public var position: Int
    public var uri: String
    public var method: String
    public var wrapped: Data?
    public var keyFormat: String?
    public var keyID: String?

    /// A key of a title; `wrapped` is nil until the license worker acquired it.
    public init(
        token: String, position: Int, uri: String, method: String, wrapped: Data?, keyFormat: String? = nil,
        keyID: String? = nil
    ) {
        self.token = token
        self.position = position
        self.uri = uri
        self.method = method
        self.wrapped = wrapped
        self.keyFormat = keyFormat
        self.keyID = keyID
    }

    /// The content key table's columns, for the query interface.
    public enum Columns {
        public static let token = Column(CodingKeys.token)
        public static let position = Column(CodingKeys.position)
        public static let uri = Column(CodingKeys.uri)
        public static let method = Column(CodingKeys.method)
        public static let wrapped = Column(CodingKeys.wrapped)
        public static let keyFormat = Column(CodingKeys.keyFormat)
        public static let keyID = Column(CodingKeys.keyID)
    }
}

/// A bookmark: the user's (changeable) or one that came with the source (index, read-only).
public struct BookmarkRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "bookmark"
    public var token: String
    public var kind: Bookmark.Kind
    public var position: Double
    public var label: String

    /// A bookmark `position` seconds from the start.
    public init(token: String, kind: Bookmark.Kind, position: Double, label: String) {
        self.token = token
        self.kind = kind
        self.position = position
        self.label = label
    }

    /// The bookmark table's columns, for the query interface.
    public enum Columns {
        public static let token = Column(CodingKeys.token)
        public static let kind = Column(CodingKeys.kind)
        public static let position = Column(CodingKeys.position)
        public static let label = Column(CodingKeys.label)
    }
}

/// A persisted setting: a key and its text value.
struct SettingRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "setting"
    var key: String
    var value: String

    enum Columns {
        static let key = Column(CodingKeys.key)
        static let value = Column(CodingKeys.value)
    }
}
