import StowageProtocol

/// A media playlist (RFC 8216 §4.3.3/§4.3.2), with the line of every element kept for offline rewriting.
public struct MediaPlaylist: Sendable {
    /// `EXT-X-KEY` state in force for a segment.
    public struct Key: Sendable, Equatable {
        public var method: String
        public var uri: String?
        public var iv: String?
        public var keyFormat: String?
        /// `KEYID` (hex), used by W3C Clear Key.
        public var keyID: String?
        public var isEncrypted: Bool { method != "NONE" }
        /// The whole segment is one ciphertext (AES-128, AES-256, AES-256-CTR): its container can only be checked
        /// after decryption. SAMPLE-AES and SAMPLE-AES-CTR encrypt samples inside an intact MPEG-TS or fMP4
        /// structure, which is checked as delivered (and must never be deciphered as a whole).
        public var encryptsWholeSegment: Bool { ["AES-128", "AES-256", "AES-256-CTR"].contains(method) }
        /// Key formats Stowage can acquire and deliver offline: HLS key delivery and W3C Clear Key.
        public var isDeliverable: Bool { keyFormat == nil || keyFormat == "identity" || keyFormat == Self.clearKey }
        public static let clearKey = "org.w3.clearkey"
    }
    /// `EXT-X-MAP` in force for a segment.
    public struct InitSection: Sendable, Equatable {
        public var uri: String
        public var byteRange: ByteRange?
        /// 1-based line of the tag.
        public var line: Int
        /// The `EXT-X-KEY` in force at the tag (RFC 8216 §4.3.2.4: a key applies to the maps that follow it): an
        /// AES-128, AES-256 or AES-256-CTR key means the section is ciphertext on the wire; nil when clear.
        public var key: Key? = nil
    }
    public struct Segment: Sendable {
        public var uri: String
        public var duration: Double
        public var byteRange: ByteRange?
        public var mediaSequence: Int
        public var key: Key?
        public var map: InitSection?
        public var isGap: Bool
        /// 1-based line of the URI.
        public var line: Int
        /// An `EXT-X-DISCONTINUITY` comes before it.
        public var discontinuity = false
        /// Its `EXT-X-PROGRAM-DATE-TIME`, if one comes right before it.
        public var programDateTime: String?
    }

    /// `EXT-X-KEY` METHODs read: RFC 8216's, and rfc8216bis's AES-256 (CBC, like AES-128) and AES-256-CTR,
    /// whose 32-byte keys are acquired and served at `/keys/n` like AES-128 ones.
    static let methods: Set<String> = ["NONE", "AES-128", "AES-256", "AES-256-CTR", "SAMPLE-AES", "SAMPLE-AES-CTR"]

    public let url: String
    public let lines: [Substring]
    public private(set) var segments: [Segment] = []
    public private(set) var targetDuration: Double?
    public private(set) var mediaSequence = 0
    public private(set) var playlistType: String?
    public private(set) var hasEndList = false
    /// `EXT-X-VERSION` as written, and whether `EXT-X-INDEPENDENT-SEGMENTS` is present.
    public private(set) var version: String?
    public private(set) var independentSegments = false
    /// Lines of `EXT-X-BYTERANGE` tags (dropped offline: each range is stored as its own file).
    public private(set) var byteRangeLines: Set<Int> = []
    /// Lines of `EXT-X-KEY` tags.
    public private(set) var keyLines: [Int: Key] = [:]
    /// `EXT-X-DATERANGE` entries (ID, START-DATE, an optional label from X-TITLE / X-LABEL / CLASS).
    public private(set) var dateRanges: [(id: String, start: String, label: String?)] = []
    /// The first `EXT-X-PROGRAM-DATE-TIME` and the playlist time (seconds) at which it applies.
    public private(set) var programDateTime: (date: String, at: Double)?

    public var totalDuration: Double { segments.reduce(0) { $0 + $1.duration } }

    /// Parses a media playlist fetched from `url`. Refuses live playlists unless `allowLive`.
    public init(text: String, url: String, allowLive: Bool = false) throws(PlaylistError) {
        self.url = url
        lines = try PlaylistLines(text, url: url).lines
        try parse()
        if !hasEndList && !allowLive && playlistType != "VOD" {
            throw PlaylistError(
                .live, url: url, line: nil,
                "live playlist (no #EXT-X-ENDLIST): only complete VOD or EVENT playlists are downloaded; "
                    + "submit it with --record to record the stream")
        }
    }

    /// Most segments accepted in one media playlist: 55 hours of 1-second segments. More is a hostile or
    /// broken playlist, refused before it can fill the store.
    public static let maxSegments = 200_000
    /// Longest `EXTINF` or `EXT-X-TARGETDURATION` accepted, seconds (a week): beyond it the playlist is hostile.
    public static let maxDuration = 604_800.0
    /// Largest `EXT-X-MEDIA-SEQUENCE` accepted: numbering its segments never overflows.
    public static let maxSequence = Int(Int32.max) * 1_000

    private mutating func parse() throws(PlaylistError) {
        var pendingDuration: Double?
        var pendingRange: ByteRange?
        var pendingGap = false
        var pendingDiscontinuity = false
        var pendingDateTime: String?
        var key: Key?
        var map: InitSection?
        var lastRangeEnd: [String: Int64] = [:]
        var sequence = 0
        var sawSegment = false
        for (i, line) in lines.enumerated() {
            let number = i + 1
            func fail(_ message: String) -> PlaylistError { PlaylistError(.malformed, url: url, line: number, message) }
            if line.isEmpty || line.allSatisfy(\.isWhitespace) { continue }
            if line.hasPrefix("#") {
                let (name, value) = PlaylistLines.tag(line)
                switch name {
                case "#EXTINF":
                    let durationText =
                        value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                    guard let duration = Double(durationText.trimmingCharacters(in: " ")), duration >= 0,
                        duration <= Self.maxDuration
                    else {
                        throw fail("#EXTINF duration '\(durationText.prefix(40))' is not a number")
                    }
                    pendingDuration = duration
                case "#EXT-X-TARGETDURATION":
                    guard let v = Double(value.trimmingCharacters(in: " ")), v >= 0, v <= Self.maxDuration else {
                        throw fail("#EXT-X-TARGETDURATION is not a number of seconds (0…\(Int(Self.maxDuration)))")
                    }
                    targetDuration = v
                case "#EXT-X-MEDIA-SEQUENCE":
                    guard !sawSegment else { throw fail("#EXT-X-MEDIA-SEQUENCE must come before the first segment") }
                    guard let v = Int(value.trimmingCharacters(in: " ")), v >= 0, v <= Self.maxSequence else {
                        throw fail("#EXT-X-MEDIA-SEQUENCE is not a number (0…\(Self.maxSequence))")
                    }
                    mediaSequence = v
                    sequence = v
                case "#EXT-X-PLAYLIST-TYPE":
                    playlistType = String(value.trimmingCharacters(in: " "))
                case "#EXT-X-ENDLIST":
                    hasEndList = true
                case "#EXT-X-GAP":
                    pendingGap = true
                case "#EXT-X-DISCONTINUITY":
                    pendingDiscontinuity = true
                case "#EXT-X-VERSION":
                    version = String(value.trimmingCharacters(in: " "))
                case "#EXT-X-INDEPENDENT-SEGMENTS":
                    independentSegments = true
                case "#EXT-X-PROGRAM-DATE-TIME":
                    pendingDateTime = String(value.trimmingCharacters(in: " "))
                    if programDateTime == nil {
                        programDateTime = (
                            String(value.trimmingCharacters(in: " ")), segments.reduce(0) { $0 + $1.duration }
                        )
                    }
                case "#EXT-X-DATERANGE":
                    if let attrs = try? AttributeList(parsing: value), let id = attrs["ID"],
                        let start = attrs["START-DATE"]
                    {
                        dateRanges.append((id, start, attrs["X-TITLE"] ?? attrs["X-LABEL"] ?? attrs["CLASS"]))
                    }
                case "#EXT-X-BYTERANGE":
                    do {
                        // Offset omitted (-1): resolved against the segment URI when it arrives.
                        pendingRange = try ByteRange.parse(String(value), previousEnd: -1)
                    } catch {
                        throw fail("#EXT-X-BYTERANGE: \(error.message)")
                    }
                    byteRangeLines.insert(number)
                case "#EXT-X-KEY":
                    let attrs: AttributeList
                    do { attrs = try AttributeList(parsing: value) } catch {
                        throw fail("#EXT-X-KEY: \(error.message)")
                    }
                    guard let method = attrs["METHOD"] else { throw fail("#EXT-X-KEY has no METHOD") }
                    guard Self.methods.contains(method) else {
                        throw fail("#EXT-X-KEY METHOD \(method.prefix(20)) is not supported")
                    }
                    if method != "NONE" && attrs["URI"] == nil { throw fail("#EXT-X-KEY METHOD=\(method) needs a URI") }
                    if let iv = attrs["IV"], !Self.isValidIV(iv) {
                        throw fail("#EXT-X-KEY IV '\(iv.prefix(40))' is not a 128-bit hex number")
                    }
                    let k = Key(
                        method: method, uri: attrs["URI"], iv: attrs["IV"], keyFormat: attrs["KEYFORMAT"],
                        keyID: attrs["KEYID"])
                    if k.isDeliverable { key = k.isEncrypted ? k : nil }
                    keyLines[number] = k
                case "#EXT-X-MAP":
                    let attrs: AttributeList
                    do { attrs = try AttributeList(parsing: value) } catch {
                        throw fail("#EXT-X-MAP: \(error.message)")
                    }
                    guard let uri = attrs["URI"], !uri.isEmpty else { throw fail("#EXT-X-MAP has no URI") }
                    var range: ByteRange?
                    if let r = attrs["BYTERANGE"] {
                        do { range = try ByteRange.parse(r, previousEnd: 0) } catch {
                            throw fail("#EXT-X-MAP \(error.message)")
                        }
                    }
                    map = InitSection(uri: uri, byteRange: range, line: number, key: key)
                default:
                    continue  // unknown and pass-through tags (DISCONTINUITY, PROGRAM-DATE-TIME, …)
                }
                continue
            }
            // A URI line: one segment.
            guard let duration = pendingDuration else {
                throw fail("segment URI '\(line.prefix(60))' has no #EXTINF before it")
            }
            let uri = String(line.trimmingCharacters(in: " \t"))
            var range = pendingRange
            if var r = range, r.offset < 0 {
                guard let end = lastRangeEnd[uri] else {
                    throw fail("#EXT-X-BYTERANGE without offset must follow a byte range of the same resource")
                }
                r.offset = end
                range = r
            }
            if let r = range {
                guard r.offset <= OutsideNumbers.maxBytes - r.length else {
                    throw fail("#EXT-X-BYTERANGE ends beyond the largest file offset (\(OutsideNumbers.maxBytes))")
                }
                lastRangeEnd[uri] = r.offset + r.length
            } else {
                lastRangeEnd[uri] = nil
            }
            guard segments.count < Self.maxSegments else {
                throw PlaylistError(
                    .tooLarge, url: url, line: number, "more than \(Self.maxSegments) segments: refused")
            }
            segments.append(
                Segment(
                    uri: uri, duration: duration, byteRange: range, mediaSequence: sequence,
                    key: key, map: map, isGap: pendingGap, line: number, discontinuity: pendingDiscontinuity,
                    programDateTime: pendingDateTime))
            sawSegment = true
            sequence += 1
            pendingDuration = nil
            pendingRange = nil
            pendingGap = false
            pendingDiscontinuity = false
            pendingDateTime = nil
        }
        if pendingDuration != nil {
            throw PlaylistError(
                .malformed, url: url, line: lines.count, "#EXTINF at the end has no segment URI after it")
        }
    }

    static func isValidIV(_ text: String) -> Bool {
        guard text.hasPrefix("0x") || text.hasPrefix("0X") else { return false }
        let hex = text.dropFirst(2)
        return !hex.isEmpty && hex.count <= 32 && hex.allSatisfy(Hex.isDigit)
    }
}
