import Foundation

/// An HTTP request header, kept in order.
public struct Header: Codable, Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses `Name: value`; nil when there is no colon or the name is empty or not a token.
    public init?(parsing line: String) {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        let allowed = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        guard !name.isEmpty, name.allSatisfy({ allowed.contains($0) }),
            !value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7f })
        else { return nil }
        self.init(name: name, value: value)
    }
}

/// Which renditions of a master playlist to keep.
public struct Selection: Codable, Sendable, Equatable {
    /// Highest variant whose bandwidth is not above this; nil = the lowest variant with video.
    public var bitrate: Int?
    /// Ignore variants taller than this.
    public var maxHeight: Int?
    /// Audio languages; nil = the DEFAULT rendition of the variant's group.
    public var audio: [String]?
    /// Subtitle languages; nil = none; ["all"] = every subtitle rendition.
    public var subtitles: [String]?
    /// Keep the kept video's I-frame playlist (`EXT-X-I-FRAME-STREAM-INF`, what players scrub with); nil or false
    /// drops it. Its ranges inside kept segments cost nothing; others are fetched with the title.
    public var iframes: Bool?
    /// Video codec families the device decodes, most preferred first (`--video-codec`); nil = any.
    public var videoCodec: [CodecFamily]?
    /// The dynamic range the device shows (`--video-range`); nil = any.
    public var videoRange: VideoRange?
    /// Audio codec families the device decodes, most preferred first (`--audio-codec`); nil = any.
    public var audioCodec: [CodecFamily]?
    /// At most this many audio channels (`--channels`); nil = any.
    public var channels: Int?
    /// No video at all (`--audio-only`): an audio-only variant or rendition, or DASH audio AdaptationSets only.
    public var audioOnly: Bool?

    public init(
        bitrate: Int? = nil, maxHeight: Int? = nil, audio: [String]? = nil, subtitles: [String]? = nil,
        iframes: Bool? = nil, videoCodec: [CodecFamily]? = nil, videoRange: VideoRange? = nil,
        audioCodec: [CodecFamily]? = nil, channels: Int? = nil, audioOnly: Bool? = nil
    ) {
        self.bitrate = bitrate
        self.maxHeight = maxHeight
        self.audio = audio
        self.subtitles = subtitles
        self.iframes = iframes
        self.videoCodec = videoCodec
        self.videoRange = videoRange
        self.audioCodec = audioCodec
        self.channels = channels
        self.audioOnly = audioOnly
    }
}

/// The work inside a task.
public enum Work: Codable, Sendable, Equatable {
    /// Download worker: fetch and parse the playlists, apply the selection, plan the offline copy.
    case resolve(ResolveWork)
    /// License worker: acquire what the title needs to be played offline.
    case license(LicenseWork)
    /// Download worker: fetch one resource to a file under the titles root.
    case fetch(FetchWork)
    /// Download worker: several resources of one title from one host, fetched one after another (one
    /// connection), made durable together and answered by one `fetchedBatch` result.
    case fetchBatch(FetchBatch)
    /// Integrity worker: check one stored file.
    case verify(VerifyWork)
    /// Download worker: fetch a live media playlist again (a recording's reload).
    case reload(ReloadWork)

    /// `resolve`, `license`, `fetch` or `verify` (metrics and logs).
    public var name: String {
        switch self {
        case .resolve: "resolve"
        case .license: "license"
        case .fetch, .fetchBatch: "fetch"
        case .verify: "verify"
        case .reload: "reload"
        }
    }

    /// Which kind of worker runs it.
    public var workerKind: WorkerKind {
        switch self {
        case .resolve, .fetch, .fetchBatch, .reload: .download
        case .license: .license
        case .verify: .integrity
        }
    }
}

public struct ResolveWork: Codable, Sendable, Equatable {
    public var url: String
    public var headers: [Header]
    public var selection: Selection
    /// A recording: live playlists are accepted, and the plan names the renditions only (their segments come
    /// with the reloads).
    public var live: Bool?
    /// `url` is a peer box's `manifest.json` (`submit --from-peer`): the plan is that box's, each file with the
    /// peer's SHA-256 (``PeerManifest/fillPlan``), and `selection` does not apply.
    public var peer: Bool?
    /// A clip (`submit --range`): only the segments that overlap it are planned, in every rendition.
    public var range: ClipRange?

    public init(url: String, headers: [Header], selection: Selection) {
        self.url = url
        self.headers = headers
        self.selection = selection
    }
}

public struct LicenseWork: Codable, Sendable, Equatable {
    public var url: String
    public var headers: [Header]
    /// Key URIs the plan references (empty for a clear title).
    public var keyURIs: [String]
    /// What the user asked for (nil: no terms, a clear or unrestricted title).
    public var terms: RequestedTerms?
    /// A JSON license API to ask (identity and authorisation in its query string).
    public var licenseURL: String?
    /// A renewal of a license already held.
    public var renewal: Bool
    /// Per key (same order as `keyURIs`): its key system, nil for HLS key delivery.
    public var keys: [PlannedKey]?
    /// Only fetch these keys (a recording met a new key): no license API request, the terms are unchanged.
    public var keysOnly: Bool?

    public init(
        url: String, headers: [Header], keyURIs: [String], terms: RequestedTerms? = nil, licenseURL: String? = nil,
        renewal: Bool = false
    ) {
        self.url = url
        self.headers = headers
        self.keyURIs = keyURIs
        self.terms = terms
        self.licenseURL = licenseURL
        self.renewal = renewal
    }
}

/// License terms as requested (`--purchase`, `--rental`, `--play-duration`, `--play-count`, `--play-time`).
public struct RequestedTerms: Codable, Sendable, Equatable {
    public var kind: LicenseKind
    public var rentalSeconds: Double?
    public var playDurationSeconds: Double?
    public var playCount: Int?
    public var playTimeSeconds: Double?

    public init(
        kind: LicenseKind, rentalSeconds: Double? = nil, playDurationSeconds: Double? = nil, playCount: Int? = nil,
        playTimeSeconds: Double? = nil
    ) {
        self.kind = kind
        self.rentalSeconds = rentalSeconds
        self.playDurationSeconds = playDurationSeconds
        self.playCount = playCount
        self.playTimeSeconds = playTimeSeconds
    }
}

/// License terms as granted; `expiresAt` is absolute (seconds since 1970).
public struct GrantedTerms: Codable, Sendable, Equatable {
    public var kind: LicenseKind
    public var requestedAt: Double
    public var expiresAt: Double?
    public var playDurationSeconds: Double?
    public var playCount: Int?
    public var playTimeSeconds: Double?
    public var forceExpired: Bool
    public var renewalSuggested: Bool

    public init(
        kind: LicenseKind, requestedAt: Double, expiresAt: Double? = nil, playDurationSeconds: Double? = nil,
        playCount: Int? = nil,
        playTimeSeconds: Double? = nil, forceExpired: Bool = false, renewalSuggested: Bool = false
    ) {
        self.kind = kind
        self.requestedAt = requestedAt
        self.expiresAt = expiresAt
        self.playDurationSeconds = playDurationSeconds
        self.playCount = playCount
        self.playTimeSeconds = playTimeSeconds
        self.forceExpired = forceExpired
        self.renewalSuggested = renewalSuggested
    }

    /// The terms a request gets when no license server decides (the operator's own policy).
    public init(requested: RequestedTerms?, at requestedAt: Double) {
        self.init(
            kind: requested?.kind ?? .none, requestedAt: requestedAt,
            expiresAt: requested?.rentalSeconds.map { requestedAt + $0 },
            playDurationSeconds: requested?.playDurationSeconds, playCount: requested?.playCount,
            playTimeSeconds: requested?.playTimeSeconds)
    }
}

public struct FetchWork: Codable, Sendable, Equatable {
    public var url: String
    public var headers: [Header]
    /// Byte range of the resource inside `url`, if it is a sub-range.
    public var rangeOffset: Int64?
    public var rangeLength: Int64?
    /// Destination, relative to the titles root (`$STOWAGE_HOME/titles`).
    public var path: String
    /// The container to check while the bytes stream in; nil = no structure check (an encrypted, opaque
    /// file: its length and hash only).
    public var container: Container?
    /// Other URLs of the same bytes (DASH: several BaseURLs), tried in order when `url` fails.
    public var alternates: [String]?
    /// True when no attempt has fetched this file before (the scheduler saved the title's plan into an empty
    /// folder and has not leased the file since), so no `.part` file of it can exist: the worker does not look
    /// for one. Nil or false: it looks, and resumes what it finds.
    public var fresh: Bool?
    /// A whole-segment ciphertext's key and IV: `container` is then checked inside the decrypted bytes (in memory;
    /// the file is stored as delivered). Nil: checked as delivered, or not at all when `container` is nil.
    public var decryption: SegmentDecryption?

    public init(
        url: String, headers: [Header], rangeOffset: Int64?, rangeLength: Int64?, path: String,
        container: Container? = nil
    ) {
        self.url = url
        self.headers = headers
        self.rangeOffset = rangeOffset
        self.rangeLength = rangeLength
        self.path = path
        self.container = container
    }
}

/// Fetches that travel as one task (small segments: one message, one lease and one sync for many files).
public struct FetchBatch: Codable, Sendable, Equatable {
    public var items: [FetchWork]

    public init(items: [FetchWork]) { self.items = items }
}

/// The answer to a ``FetchBatch``: one result per item, in the items' order.
public struct FetchBatchReport: Codable, Sendable, Equatable {
    public var results: [FetchItemResult]

    public init(results: [FetchItemResult]) { self.results = results }
}

/// What became of one item of a batch.
public enum FetchItemResult: Codable, Sendable, Equatable {
    case fetched(FetchReport)
    case failed(TaskFailure)
    /// Not tried: an earlier item failed in a way the rest would share (connectivity, a full disk) or the
    /// task was canceled. Queued again without counting an attempt.
    case notAttempted
}

/// What a fetch wrote (renamed into place and synced to disk before it is reported). The download worker hashes
/// the bytes and checks the container while they stream in: a report with `sha256` is a verified file, whose
/// hash the scheduler records at once (every later check at rest compares against it). Without one, the first
/// `verify` task takes it.
public struct FetchReport: Codable, Sendable, Equatable {
    public var bytes: Int64
    /// Content-Length the origin promised, if it sent one.
    public var contentLength: Int64?
    /// Lowercase hex SHA-256 of the whole file as written (container checked), nil if not taken.
    public var sha256: String?
    /// Which URL served the file when it was not its own: 1 for the first of its alternates, and so on.
    public var servedBy: Int?
    /// Why an earlier URL did not serve it (the first failure met), when an alternate did.
    public var fellOver: String?

    public init(bytes: Int64, contentLength: Int64?, sha256: String? = nil) {
        self.bytes = bytes
        self.contentLength = contentLength
        self.sha256 = sha256
    }
}

/// The container a stored file should be, for sanity checks.
public enum Container: String, Codable, Sendable {
    case mpegTS = "ts"
    case fmp4
    case webVTT = "vtt"
    case other
}

/// What the license worker obtained.
public struct LicenseGrant: Codable, Sendable, Equatable {
    public var terms: GrantedTerms
    /// Content keys, in the order of `LicenseWork.keyURIs`, base64. Never logged.
    public var keys: [String]

    public init(terms: GrantedTerms, keys: [String] = []) {
        self.terms = terms
        self.keys = keys
    }
}

public enum LicenseKind: String, Codable, Sendable {
    case none, purchase, rental
}

/// Fetch one live media playlist again (a recording's reload, RFC 8216 §6.3.4).
public struct ReloadWork: Codable, Sendable, Equatable {
    public var url: String
    public var headers: [Header]

    public init(url: String, headers: [Header]) {
        self.url = url
        self.headers = headers
    }
}

/// A reloaded media playlist (or live MPD): its text and the URL it came from after redirects (URIs resolve
/// against it).
public struct ReloadReport: Codable, Sendable, Equatable {
    public var text: String
    public var url: String
    /// A live MPD's answer: the origin's clock (seconds since 1970) when the MPD arrived, read through its
    /// `UTCTiming` or the answer's `Date` header, so segment availability never depends on the box's clock;
    /// nil for an HLS playlist or when the origin told no time.
    public var originTime: Double?

    public init(text: String, url: String, originTime: Double? = nil) {
        self.text = text
        self.url = url
        self.originTime = originTime
    }
}
