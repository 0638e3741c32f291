import Foundation
import GRDB
import StowageProtocol

/// A title row: one submitted download.
public struct TitleRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "title"
    public var token: String
    public var url: String
    public var name: String?
    public var state: String
    public var priority: Int
    /// JSON of the user's `Selection`.
    public var selection: String
    /// JSON of the request headers.
    public var headers: String
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
    public var licenseKind: String?
    public var licenseRequestedAt: Double?
    public var licenseExpiresAt: Double?
    /// Whether the plan (renditions and resources) is stored.
    public var planned: Bool
    /// Plays authorised so far, and when the first one was.
    public var playCount: Int = 0
    public var firstPlayedAt: Double?
    /// JSON of the granted terms in force (nil until licensed).
    public var licenseTerms: String?
    /// JSON of the terms the user asked for.
    public var requestedTerms: String?
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
    /// Why a suspended title waits (`SuspendedReason` raw value; nil for titles suspended before v7:
    /// `disk-full` when `errorCode` says so, else `paused`).
    public var suspendedReason: String?
    /// When it was suspended (wall clock, for `status`).
    public var suspendedAt: Double?
    /// `host:port` whose return the title waits for (network suspension or a renewal that could not reach it).
    public var waitingHost: String?

    public init(token: String, url: String, name: String?, state: TitleState, priority: Int, selection: String,
                headers: String, requestedAt: Double) {
        self.token = token
        self.url = url
        self.name = name
        self.state = state.rawValue
        self.priority = priority
        self.selection = selection
        self.headers = headers
        self.requestedAt = requestedAt
        self.planned = false
    }

    public var titleState: TitleState { TitleState(rawValue: state) ?? .failed }
}

/// A media playlist kept offline.
public struct RenditionRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "rendition"
    public var id: Int64?
    public var token: String
    public var position: Int
    public var kind: String
    public var sourceURL: String
    public var localPath: String
    public var playlist: String
    public var language: String?

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
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
}

/// One file of a title's offline copy.
public struct ResourceRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "resource"
    public var id: Int64?
    public var token: String
    public var position: Int
    public var rendition: Int
    public var kind: String
    public var url: String
    public var rangeOffset: Int64?
    public var rangeLength: Int64?
    public var localPath: String
    public var container: String
    public var encrypted: Bool
    public var duration: Double
    public var state: String
    public var attempts: Int
    public var bytes: Int64?
    public var sha256: String?
    public var contentLength: Int64?
    public var lastError: String?

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    public var resourceState: ResourceState { ResourceState(rawValue: state) ?? .pending }
}

/// Something that happened to a title, kept for `status` history and operators.
public struct EventRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "event"
    public var id: Int64?
    public var token: String
    public var at: Double
    public var kind: String
    public var detail: String

    public init(token: String, at: Double, kind: String, detail: String) {
        self.token = token
        self.at = at
        self.kind = kind
        self.detail = detail
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
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

    public init(token: String, position: Int, uri: String, method: String, wrapped: Data?, keyFormat: String? = nil, keyID: String? = nil) {
        self.token = token
        self.position = position
        self.uri = uri
        self.method = method
        self.wrapped = wrapped
        self.keyFormat = keyFormat
        self.keyID = keyID
    }
}

/// A bookmark: the user's (changeable) or one that came with the source (index, read-only).
public struct BookmarkRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "bookmark"
    public var token: String
    public var kind: String
    public var position: Double
    public var label: String

    public init(token: String, kind: String, position: Double, label: String) {
        self.token = token
        self.kind = kind
        self.position = position
        self.label = label
    }
}
