/// The lifecycle states of a title, as in the contract.
public enum TitleState: String, Codable, Sendable, CaseIterable {
    case requested, licensing, licensed, recording, downloading, verifying, suspended, completed, canceled, failed

    /// Whether the title will not move again by itself.
    public var isFinal: Bool { self == .completed || self == .canceled || self == .failed }
}

/// Why a title is `suspended`: the operator paused it, the disk is full (it resumes when space returns),
/// an origin or license host cannot be reached (it resumes when a probe of that host succeeds), its fill
/// window is closed (it resumes when the window opens: `nextWindowAt`), or the title does not fit the scheduler's
/// `--quota` and nothing may be evicted for it (it resumes when room appears).
public enum SuspendedReason: String, Codable, Sendable, CaseIterable {
    case paused
    case diskFull = "disk-full"
    case network
    case window
    case quota
}

/// License terms as `status --json` shows them.
public struct LicenseStatus: Codable, Sendable, Equatable {
    public var kind: LicenseKind
    public var requestedAt: String?
    public var expiresAt: String?
    public var playDurationSeconds: Double?
    public var playsRemaining: Int?
    public var playTimeRemainingSeconds: Double?
    public var expired: Bool

    public init(
        kind: LicenseKind, requestedAt: String?, expiresAt: String?, playDurationSeconds: Double? = nil,
        playsRemaining: Int? = nil, playTimeRemainingSeconds: Double? = nil, expired: Bool
    ) {
        self.kind = kind
        self.requestedAt = requestedAt
        self.expiresAt = expiresAt
        self.playDurationSeconds = playDurationSeconds
        self.playsRemaining = playsRemaining
        self.playTimeRemainingSeconds = playTimeRemainingSeconds
        self.expired = expired
    }

    /// Encodes nil fields as JSON null so scripts see every key.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(requestedAt, forKey: .requestedAt)
        try c.encode(expiresAt, forKey: .expiresAt)
        try c.encode(playDurationSeconds, forKey: .playDurationSeconds)
        try c.encode(playsRemaining, forKey: .playsRemaining)
        try c.encode(playTimeRemainingSeconds, forKey: .playTimeRemainingSeconds)
        try c.encode(expired, forKey: .expired)
    }
}

/// One title, exactly the fields of the contract's `status --json`.
public struct TitleStatus: Codable, Sendable, Equatable {
    public var token: String
    public var url: String
    public var name: String?
    public var state: TitleState
    public var progress: Double
    public var bytesDownloaded: Int64
    public var bytesExpected: Int64?
    public var segmentsDone: Int
    public var segmentsTotal: Int
    public var requestedAt: String?
    public var startedAt: String?
    public var endedAt: String?
    public var license: LicenseStatus?
    public var localPlaylist: String?
    public var playableOffline: Bool
    public var error: TitleError?
    /// Why a `suspended` title waits (null in any other state).
    public var suspendedReason: SuspendedReason?
    /// Since when it has been suspended (ISO 8601), and, when it waits for the network, the next probe of
    /// the unreachable host and which host that is.
    public var suspendedSince: String?
    public var nextProbeAt: String?
    public var waitingFor: String?
    /// A title waiting for its fill window (`suspendedReason` `window`): when the window next opens (ISO 8601);
    /// null otherwise.
    public var nextWindowAt: String?
    /// A `requested` title waiting for a "titles at once" slot: its place in that queue (1 = next).
    public var queuePosition: Int?
    /// A recording (`submit --record`): seconds of media recorded and verified so far (null otherwise).
    public var recordedSeconds: Double?
    /// A recording's gaps: media that left the live window before it could be fetched, as seconds from the
    /// start of the recording (null for a title that is not a recording).
    public var gaps: [RecordingGap]?
    /// A recording whose playlist stopped updating: since when (ISO 8601); null while it updates.
    public var stalledSince: String?
    /// The caller-chosen id (`submit --id`), null when none.
    public var id: String?
    /// How the media is protected (null when it is not encrypted).
    public var protection: TitleProtection?
    /// Why it cannot be played offline now (null when `playableOffline`).
    public var notPlayableReason: NotPlayableReason?
    /// Files verified that came from a peer box (`submit --from-peer`), checked against its SHA-256; 0 otherwise.
    public var filesFromPeer: Int?
    /// Files verified that came from the origin (every file of a title not filled from a peer).
    public var filesFromOrigin: Int?
    /// When a device last played it (ISO 8601; null: never): the quota evicts the least recently played first.
    public var lastPlayedAt: String?
    /// Pinned (`stowctl pin`, or `pinned: true` in the catalogue): the quota never evicts it.
    public var pinned: Bool?
    /// A clip (`submit --range`): the span stored, seconds from the title's start on the video's segment
    /// boundaries (the span asked for until the title is planned); null for a whole title.
    public var range: ClipRange?
    /// Where its files came from when the source offers several places (HLS pathways or redundant variants, DASH
    /// BaseURLs): the pathway that served the latest file; null for a source with one.
    public var pathway: String?
    /// Those places' names, in the order they are tried; null for a source with one.
    public var pathways: [String]?
    /// The subtitles the box writes as `subtitles/<lang>.vtt` and `.srt` when the title completes, each with what
    /// came of it (null before there are any, and for a title without subtitles).
    public var subtitleFiles: [SubtitleFileStatus]?
    /// The single file asked for with `submit --file` (or a catalogue's `file`): what came of it; null when none
    /// was asked for.
    public var file: SingleFileStatus?

    public init(
        token: String, url: String, name: String?, state: TitleState, progress: Double,
        bytesDownloaded: Int64, bytesExpected: Int64?, segmentsDone: Int, segmentsTotal: Int,
        requestedAt: String?, startedAt: String?, endedAt: String?, license: LicenseStatus?,
        localPlaylist: String?, playableOffline: Bool, error: TitleError?
    ) {
        self.token = token
        self.url = url
        self.name = name
        self.state = state
        self.progress = progress
        self.bytesDownloaded = bytesDownloaded
        self.bytesExpected = bytesExpected
        self.segmentsDone = segmentsDone
        self.segmentsTotal = segmentsTotal
        self.requestedAt = requestedAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.license = license
        self.localPlaylist = localPlaylist
        self.playableOffline = playableOffline
        self.error = error
    }

    /// Encodes nil fields as JSON null so every key of the contract is always present.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(token, forKey: .token)
        try c.encode(url, forKey: .url)
        try c.encode(name, forKey: .name)
        try c.encode(state, forKey: .state)
        try c.encode(progress, forKey: .progress)
        try c.encode(bytesDownloaded, forKey: .bytesDownloaded)
        try c.encode(bytesExpected, forKey: .bytesExpected)
        try c.encode(segmentsDone, forKey: .segmentsDone)
        try c.encode(segmentsTotal, forKey: .segmentsTotal)
        try c.encode(requestedAt, forKey: .requestedAt)
        try c.encode(startedAt, forKey: .startedAt)
        try c.encode(endedAt, forKey: .endedAt)
        try c.encode(license, forKey: .license)
        try c.encode(localPlaylist, forKey: .localPlaylist)
        try c.encode(playableOffline, forKey: .playableOffline)
        try c.encode(error, forKey: .error)
        try c.encode(suspendedReason, forKey: .suspendedReason)
        try c.encode(suspendedSince, forKey: .suspendedSince)
        try c.encode(nextProbeAt, forKey: .nextProbeAt)
        try c.encode(waitingFor, forKey: .waitingFor)
        try c.encode(nextWindowAt, forKey: .nextWindowAt)
        try c.encode(queuePosition, forKey: .queuePosition)
        try c.encode(recordedSeconds, forKey: .recordedSeconds)
        try c.encode(gaps, forKey: .gaps)
        try c.encode(stalledSince, forKey: .stalledSince)
        try c.encode(protection, forKey: .protection)
        try c.encode(notPlayableReason, forKey: .notPlayableReason)
        try c.encode(id, forKey: .id)
        try c.encode(filesFromPeer, forKey: .filesFromPeer)
        try c.encode(filesFromOrigin, forKey: .filesFromOrigin)
        try c.encode(lastPlayedAt, forKey: .lastPlayedAt)
        try c.encode(pinned ?? false, forKey: .pinned)
        try c.encode(range, forKey: .range)
        try c.encode(pathway, forKey: .pathway)
        try c.encode(pathways, forKey: .pathways)
        if let subtitleFiles { try c.encode(subtitleFiles, forKey: .subtitleFiles) }
        try c.encode(file, forKey: .file)
    }
}

/// One `subtitles/<lang>.vtt` or `.srt` file of a title: written (and verified), waiting to be written, or not
/// converted (the subtitle file at fault named in `message`; the title completes without it).
public struct SubtitleFileStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        case pending, written
        case notConverted = "not-converted"
    }

    /// Relative to the title's folder.
    public var file: String
    public var state: State
    public var message: String?

    public init(file: String, state: State, message: String? = nil) {
        self.file = file
        self.state = state
        self.message = message
    }
}

/// A stretch of a recording that is missing: it left the live window before it could be fetched.
public struct RecordingGap: Codable, Sendable, Equatable {
    /// Seconds from the start of the recording.
    public var from: Double
    public var to: Double

    public init(from: Double, to: Double) {
        self.from = from
        self.to = to
    }
}

/// How to record a live or event stream (`submit --record`).
public struct RecordRequest: Codable, Sendable, Equatable {
    /// Where the recording starts: the oldest segment of the window, or the live edge.
    public enum Start: String, Codable, Sendable, CaseIterable {
        case start, live
    }
    /// Stop after this many seconds of media (nil: until the stream ends or `stowctl stop`).
    public var durationSeconds: Double?
    public var from: Start

    public init(durationSeconds: Double? = nil, from: Start = .start) {
        self.durationSeconds = durationSeconds
        self.from = from
    }
}
