/// `REQUEST`: what `stowctl` asks of the scheduler. Answered by exactly one `REPLY` with the same id.
public struct ClientRequest: Codable, Sendable, Equatable {
    public var requestID: String
    public var operation: ClientOperation

    public init(requestID: String, operation: ClientOperation) {
        self.requestID = requestID
        self.operation = operation
    }
}

/// The operations a client may request.
public enum ClientOperation: Codable, Sendable, Equatable {
    case submit(SubmitRequest)
    case status(token: String)
    /// Titles in request order; `after` (a token) and `limit` page through them (nil: from the first; all).
    case list(state: TitleState?, after: String? = nil, limit: Int? = nil)
    case cancel(token: String)
    case workers
    /// Start (or keep alive) a subscription to events for these tokens (empty = all titles).
    /// A subscription lapses unless renewed within three heartbeat periods.
    case subscribe(tokens: [String])
    case unsubscribe
    /// Suspend a title; work in flight stops, bytes on disk are kept.
    case pause(token: String)
    /// Continue a suspended or failed title from what is on disk.
    case resume(token: String)
    /// Remove a title's files and record.
    case delete(token: String)
    /// End a recording: no more reloads; what it found is fetched and verified, then it completes as VOD.
    case stop(token: String)
    /// Read (nil) or change the live limits (answers `.limits`).
    case limits(LimitSettings?)
    /// Renew a title's license without re-downloading (new terms / license URL optional). Answers `.title`
    /// at once; the renewal's end shows in `status.license` (or `licenseError` in `license`).
    case renew(token: String, terms: RequestedTerms?, licenseURL: String?)
    /// License terms and state of a title (answers `.license`).
    case license(token: String)
    /// Media actually played (seconds of segments served by `stowctl play`), for total-play-time limits.
    /// `reportID` (the gateway's, kept and sent again until acknowledged): the scheduler applies one id once, so a
    /// report sent again after a lost answer or a takeover is not counted twice (nil: applied every time).
    case played(token: String, seconds: Double, reportID: String? = nil)
    /// Bookmarks: add (replaces one at the same position), remove (user bookmarks only), list.
    case bookmarkAdd(token: String, position: Double, label: String)
    case bookmarkRemove(token: String, position: Double)
    case bookmarks(token: String)
    /// Re-check every file of a completed title at rest; with `repair`, fetch again only what is bad.
    case verify(token: String, repair: Bool)
    /// Remove what the store does not know under `titles/` (answers `.removed`).
    case gc
    /// The pipeline's figures (answers `.stats`).
    case stats
    /// This box's public key for bundles (answers `.boxKey`): what other boxes pass as `--for-box` or `--trust`.
    case boxKey
    /// Write a title to a folder as a signed bundle (answers `.bundleJob`, running; poll with `bundleJob`).
    case exportTitle(BundleExportRequest)
    /// Check a bundle folder and take its title in (answers `.bundleJob`, running; poll with `bundleJob`).
    case importBundle(BundleImportRequest)
    /// An export or import under way or ended (answers `.bundleJob`, or `not-found`).
    case bundleJob(id: String)
    /// Whether the title can be played offline now (answers `.playable`).
    case playable(token: String)
    /// Authorise one play: checks playability, counts the play (answers `.play`).
    /// `playID`: the same id sent again (a lost answer, a takeover) counts the play once; the answer to a repeat
    /// is the title's playability now (as `playable`), counting nothing.
    case play(token: String, playID: String? = nil)
    /// Release content key `index` of a title, only while it is playable (answers `.key`). Never logged.
    case key(token: String, index: Int)
    /// Add a device of the LAN; answers `.deviceSecret` (the secret is shown once). `peer` true: another box
    /// (`devices add --peer`), which may read titles' manifests and files but never plays.
    case deviceAdd(name: String, peer: Bool? = nil)
    /// Every device and its last plays (answers `.devices`).
    case devices
    /// Revoke a device: its secret and signed URLs stop working at once.
    case deviceRevoke(name: String)
    /// A signed gateway URL for a device (answers `.signedPath`: the path with `?dev=…&exp=…&sig=…`).
    case deviceSign(name: String, path: String, expiresInSeconds: Double)
    /// Add a device as `deviceAdd` does and give it a one-time pairing code instead of showing its secret
    /// (answers `.devicePairing`): the code logs one browser in as the device, once, within ten minutes.
    case devicePair(name: String)
    /// Redeem a pairing code (the gateway's `GET /pair/<code>`): checked and burnt at once; answers `.pairingGrant`
    /// (the device and a signed credential for the browser's session), or `unauthorized` saying why not.
    case pairRedeem(code: String)
    /// Check a device's credential (answers `.principal`, or the error `unauthorized`).
    case authenticate(DeviceCredential)
    /// Authorise one play of a title on a device (`play`, recorded as that device's play).
    /// `playID` as `play`'s.
    case playOn(token: String, device: String, playID: String? = nil)
    /// The title with this caller-chosen id (`submit --id`) or source URL (answers `.title`, or `not-found`).
    case lookup(id: String?, url: String?)
    /// Apply a catalogue (`stowctl catalog apply`): its exact bytes and detached signature, both base64, as
    /// read from the file (answers `.catalog`, or the refusal as an error).
    case catalogApply(document: String, signature: String?)
    /// The catalogue in force and each entry's phase (answers `.catalog`).
    case catalogStatus
    /// The `--notify` receivers and what waits for each (answers `.notify`).
    case notifyStatus
    /// A title's plan with each verified file's size and SHA-256, for a peer box (answers `.peerManifest`).
    case peerManifest(token: String)
    /// Pin (`pinned` true) or unpin a title: the quota never evicts a pinned title (answers `.title`).
    case pin(token: String, pinned: Bool)
    /// The titles the quota would evict, first victim first (answers `.titles`; empty without `--quota`).
    case evictable
    /// What a fetch of `url` for the operator may reach under the box's `--allow-hosts`, `--allow-networks` and
    /// `--deny-networks` (answers `.fetchScope`; refused when `url` may not be a title's source): the gateway's
    /// console looks at a playlist before it is submitted with the scheduler's rules, not rules of its own.
    case fetchScope(url: String)
}

/// The answer to `playable` and `play`.
public struct PlayAuthorization: Codable, Sendable, Equatable {
    public var playable: Bool
    /// Why not, when not playable.
    public var reason: String?
    /// The title directory and its entry playlist (relative), when playable.
    public var directory: String?
    public var entryPlaylist: String?
    /// Set when the title is still downloading (`play` only): what is on disk is served from `directory`,
    /// everything else comes from here — the offline playlists by relative path, and each file still
    /// missing fetched on demand from its source (never written, never counted as downloaded).
    public var streaming: StreamingPlan?
    /// Why not, with its code (as `status --json` `notPlayableReason`).
    public var notPlayable: NotPlayableReason?
    /// Clear Key key IDs (32 lowercase hex digits) by key index, for the play server's license endpoint.
    public var clearKeyIDs: [String: Int]?
    /// A DASH title's media segments (`/<path>` -> seconds) for metering play time (HLS titles' come from their
    /// playlists).
    public var mediaDurations: [String: Double]?

    public init(
        playable: Bool, reason: String?, directory: String?, entryPlaylist: String?, streaming: StreamingPlan? = nil
    ) {
        self.playable = playable
        self.reason = reason
        self.directory = directory
        self.entryPlaylist = entryPlaylist
        self.streaming = streaming
    }
}

/// How `play` serves a title that is still downloading.
public struct StreamingPlan: Codable, Sendable, Equatable {
    /// The offline playlists (master and media), by path relative to the title directory.
    public var playlists: [String: String]
    /// Every file of the offline copy: where it comes from when it is not on disk yet.
    public var sources: [PlaySource]
    /// The request headers the title was submitted with (sent to the origin on demand, as `scope` allows).
    public var headers: [Header]
    /// What fetching a missing file may do: the same hosts, addresses and header hosts as the title's downloads.
    public var scope: FetchScope?

    public init(playlists: [String: String], sources: [PlaySource], headers: [Header], scope: FetchScope? = nil) {
        self.playlists = playlists
        self.sources = sources
        self.headers = headers
        self.scope = scope
    }
}

/// One file of the offline copy and its source.
public struct PlaySource: Codable, Sendable, Equatable {
    /// Relative to the title directory, as named in the offline playlists.
    public var localPath: String
    public var url: String
    public var rangeOffset: Int64?
    public var rangeLength: Int64?

    public init(localPath: String, url: String, rangeOffset: Int64?, rangeLength: Int64?) {
        self.localPath = localPath
        self.url = url
        self.rangeOffset = rangeOffset
        self.rangeLength = rangeLength
    }
}

public struct SubmitRequest: Codable, Sendable, Equatable {
    public var url: String
    public var name: String?
    public var priority: Int
    public var headers: [Header]
    public var selection: Selection
    public var terms: RequestedTerms?
    public var licenseURL: String?
    /// `preload`: acquire the license only; a later submit of the same URL downloads.
    public var preloadOnly: Bool
    /// A poster / thumbnail to fetch with the title.
    public var posterURL: String?
    /// Record a live or event stream (`--record`); nil: the playlist must be VOD (or an ended EVENT).
    public var record: RecordRequest?
    /// A caller-chosen unique id (`--id`), for lookups by the gateway's `/resolve?id=`.
    public var id: String?
    /// Download a title only a device's DRM can play (`--allow-device-drm`); it is never reported playable.
    public var allowDeviceDRM: Bool?
    /// Hosts besides the URL's own that get `headers` (`--header-host`); no other host ever does.
    public var headerHosts: [String]?
    /// Content keys the operator holds (`--key KID:KEY`): the title is licensed with them and the requested
    /// terms, and no license server is asked. Absent on the wire when none (older peers ignore it).
    public var keys: [OperatorKey]?
    /// `--from-peer`: the files come from another box's gateway, each checked against the hash of that box's
    /// manifest, and from the origin's URLs in it where that box lacks a file or serves it wrong. The manifest is
    /// fetched by the title's resolve (a download worker, under the network policy), not by the caller: a peer
    /// that cannot be reached then is a network wait, like an origin.
    public var peer: PeerSource?
    /// The title's own fill windows (`--window`, a ``FillSchedule``'s text): they replace the box's
    /// `--fill-window` for it. Absent: the box's.
    public var window: String?
    /// Fetch at once, whatever the windows say (`--now`, a catalogue's `"urgent"`).
    public var now: Bool?
    /// `--range START-END`: keep only the segments that overlap this span of a VOD title (a clip).
    public var range: ClipRange?
    /// `--file mp4|mkv`: the box also writes the title as one `title.mp4`/`title.mkv` when it completes (a clear
    /// title without license limits only: ``SingleFileClearance``).
    public var file: SingleFileFormat?

    public init(
        url: String, name: String?, priority: Int, headers: [Header], selection: Selection,
        terms: RequestedTerms? = nil, licenseURL: String? = nil, preloadOnly: Bool = false
    ) {
        self.url = url
        self.name = name
        self.priority = priority
        self.headers = headers
        self.selection = selection
        self.terms = terms
        self.licenseURL = licenseURL
        self.preloadOnly = preloadOnly
    }
}

/// `REPLY`: the answer to one request.
public struct ClientReply: Codable, Sendable, Equatable {
    public var requestID: String
    public var result: ReplyBody

    public init(requestID: String, result: ReplyBody) {
        self.requestID = requestID
        self.result = result
    }
}

public enum ReplyBody: Codable, Sendable, Equatable {
    case submitted(token: String)
    case stats(SchedulerStats)
    case title(TitleStatus)
    case titles([TitleStatus])
    case workers([WorkerInfo])
    case play(PlayAuthorization)
    case license(LicenseReport)
    case removed([String])
    case bookmarks([Bookmark])
    case limits(LimitSettings)
    /// A content key, base64.
    case key(String)
    case deviceSecret(DeviceSecret)
    case devices([DeviceInfo])
    case signedPath(String)
    case devicePairing(DevicePairing)
    case pairingGrant(PairingGrant)
    /// This box's public key file text (one line of JSON, see docs/bundles.md).
    case boxKey(String)
    case bundleJob(BundleJob)
    case principal(DevicePrincipal)
    case ok
    case catalog(CatalogReport)
    case notify(NotifyReport)
    case peerManifest(PeerManifest)
    case fetchScope(FetchScope)
    case error(TitleError)
    /// This scheduler is a standby (another leads, or none does yet): it answers no request itself and says
    /// where the leader is, so a client with several endpoints asks there instead.
    case standby(StandbyAnswer)
}

/// A standby scheduler's answer to every client request: the leader as the shared store records it.
public struct StandbyAnswer: Codable, Sendable, Equatable {
    /// The leader's term (0: no scheduler has led yet).
    public var term: Int64
    /// The tcp endpoints clients reach the leader at; empty when no leader is known (none, or its lease lapsed).
    public var leaderEndpoints: [String]
    /// When the leader took its term (seconds since 1970), nil when no leader is known.
    public var leaderSince: Double?

    public init(term: Int64, leaderEndpoints: [String], leaderSince: Double? = nil) {
        self.term = term
        self.leaderEndpoints = leaderEndpoints
        self.leaderSince = leaderSince
    }
}

/// `EVENT`: pushed to subscribers when a title changes state or makes progress.
public struct TitleEvent: Codable, Sendable, Equatable {
    /// `state`, `progress`, `error` …
    public var kind: String
    public var status: TitleStatus
    /// What happened, in words, for an event that is more than a change of the status (`evicted`: which title
    /// left to make room); null otherwise.
    public var detail: String?

    public init(kind: String, status: TitleStatus, detail: String? = nil) {
        self.kind = kind
        self.status = status
        self.detail = detail
    }
}

/// A connected worker as `stowctl workers` shows it.
public struct WorkerInfo: Codable, Sendable, Equatable {
    public var id: String
    public var kind: WorkerKind
    public var host: String
    public var pid: Int32
    public var capacity: Int
    public var tasksInHand: Int
    /// Seconds since the last message from it.
    public var lastSeenSecondsAgo: Double
    public var alive: Bool

    public init(
        id: String, kind: WorkerKind, host: String, pid: Int32, capacity: Int, tasksInHand: Int,
        lastSeenSecondsAgo: Double, alive: Bool
    ) {
        self.id = id
        self.kind = kind
        self.host = host
        self.pid = pid
        self.capacity = capacity
        self.tasksInHand = tasksInHand
        self.lastSeenSecondsAgo = lastSeenSecondsAgo
        self.alive = alive
    }
}

/// `stowctl license`: the terms in force, and the last renewal error if any.
public struct LicenseReport: Codable, Sendable, Equatable {
    public var token: String
    public var license: LicenseStatus?
    public var licenseURL: String?
    public var forceExpired: Bool
    public var renewalSuggested: Bool
    public var renewing: Bool
    public var lastError: String?
    public var playable: Bool
    public var reason: String?

    public init(
        token: String, license: LicenseStatus?, licenseURL: String?, forceExpired: Bool, renewalSuggested: Bool,
        renewing: Bool, lastError: String?, playable: Bool, reason: String?
    ) {
        self.token = token
        self.license = license
        self.licenseURL = licenseURL
        self.forceExpired = forceExpired
        self.renewalSuggested = renewalSuggested
        self.renewing = renewing
        self.lastError = lastError
        self.playable = playable
        self.reason = reason
    }
}
