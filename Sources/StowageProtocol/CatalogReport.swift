/// `stowctl catalog status`: the catalogue in force, where it comes from, the last fetch, and each entry.
public struct CatalogReport: Codable, Sendable, Equatable {
    /// The version in force (nil: none yet).
    public var version: Int?
    /// `--catalog` (URL or file), or `apply` for `stowctl catalog apply`.
    public var source: String?
    /// When the catalogue in force was applied (ISO 8601).
    public var appliedAt: String?
    /// The last fetch or read (ISO 8601), and why the last one was refused or failed (nil: it was good).
    public var lastFetchAt: String?
    public var lastError: CatalogRefusal?
    /// One line per entry of the catalogue in force, and per title it added that is leaving.
    public var entries: [CatalogEntryStatus]

    public init(
        version: Int?, source: String?, appliedAt: String?, lastFetchAt: String?, lastError: CatalogRefusal?,
        entries: [CatalogEntryStatus]
    ) {
        self.version = version
        self.source = source
        self.appliedAt = appliedAt
        self.lastFetchAt = lastFetchAt
        self.lastError = lastError
        self.entries = entries
    }
}

/// Where one catalogue title is.
public struct CatalogEntryStatus: Codable, Sendable, Equatable {
    public enum Phase: String, Codable, Sendable {
        /// Completed on the box.
        case present
        /// Being fetched (first copy, or a new copy that replaces the one present: `replacing`).
        case downloading
        /// Waiting for its fill window.
        case waitingForWindow = "waiting-for-window"
        /// It failed (see `error`).
        case failed
        /// It left the catalogue (or was replaced) and is deleted at `removeAt`, when no device plays it.
        case toBeRemoved = "to-be-removed"
        /// Listed, but a title the operator submitted by hand holds its id: the catalogue leaves it alone.
        case heldByOperator = "held-by-operator"
    }

    public var id: String
    public var token: String?
    public var phase: Phase
    /// The token of a new copy being downloaded to replace `token`.
    public var replacing: String?
    public var removeAt: String?
    public var error: TitleError?

    public init(
        id: String, token: String?, phase: Phase, replacing: String? = nil, removeAt: String? = nil,
        error: TitleError? = nil
    ) {
        self.id = id
        self.token = token
        self.phase = phase
        self.replacing = replacing
        self.removeAt = removeAt
        self.error = error
    }
}
