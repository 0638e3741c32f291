import Foundation
import StowageProtocol

/// One rendition of a recording between two reloads of its live playlist: how far it has been taken and what
/// its offline playlist has in force. Stored with the rendition (as JSON) so a restarted scheduler carries on.
public struct LiveRendition: Codable, Sendable, Equatable {
    /// Folder of the rendition in the title directory (`video`, `audio-en`, …).
    public var folder: String
    public var kind: PlannedRendition.Kind
    /// The first media sequence number not taken yet; nil before the first reload.
    public var nextSequence: Int?
    /// `EXT-X-TARGETDURATION` of the live playlist (reload pacing, gap length estimates).
    public var targetDuration: Double = 6
    /// Seconds of the recording's timeline taken so far (segments and gaps).
    public var seconds: Double = 0
    /// The longest segment taken (the offline `EXT-X-TARGETDURATION`).
    public var longest: Double = 0
    /// Identity of the key in force in the offline playlist (nil: clear), and of the init section.
    public var keyInForce: String?
    public var mapSource: String?
    public var initCount = 0
    /// The next segment starts a discontinuity (it follows a gap).
    public var discontinuityPending = false
    /// Nothing more is taken: the stream ended, the duration was reached, or the recording was stopped.
    public var ended = false
    /// The source renumbered its segments (a restarted packager): offline sequence numbers no longer match
    /// the source's, so keys without an IV are written with the explicit IV of the segment's source number.
    public var explicitIVs = false

    public init(folder: String, kind: PlannedRendition.Kind) {
        self.folder = folder
        self.kind = kind
    }
}

/// Takes what is new in a reloaded live playlist (RFC 8216 §6.3.4): segments after the last one taken, a
/// gap for segments that left the window before they were seen, discontinuities, key rotation and changed
/// `EXT-X-MAP`s, and the end (`EXT-X-ENDLIST` or the requested duration). Pure: the scheduler stores what it
/// returns, and fetches the new files like any title's.
///
/// The offline playlist is an EVENT playlist while recording (players can play what is there) and becomes
/// VOD when the recording ends (``finalText(_:longest:)``). Segments keep their media sequence numbers
/// (gaps keep their place as `EXT-X-GAP` entries), so keys without an IV still decrypt.
public enum LiveRecorder {
    /// Most placeholder entries written for one gap; a longer jump of the media sequence (or one back by more
    /// than this) is a restarted packager rather than missed segments: a discontinuity, no gap entries.
    public static let maxGapEntries = 10_000

    /// One file (or gap placeholder) of the offline copy.
    public struct Entry: Sendable, Equatable {
        public var resource: PlannedResource
        /// Nothing to fetch: a segment that left the window unseen, or one the source marked `EXT-X-GAP`.
        public var isGap: Bool
    }

    /// What a reload adds.
    public struct Delta: Sendable {
        /// Lines to append to the rendition's offline playlist.
        public var lines: [String] = []
        public var entries: [Entry] = []
        /// Keys met for the first time (positions follow the title's existing keys).
        public var newKeys: [PlannedKey] = []
        /// Segments taken, and segments that had left the window unseen.
        public var newSegments = 0
        public var missed = 0
        /// The rendition ended with this reload.
        public var ended = false
        /// Something new: segments, a gap, or the end.
        public var changed: Bool { newSegments > 0 || missed > 0 || ended }
    }

    /// Merges a reloaded playlist into `state`. `keys` are the title's keys so far (offline key `n` is
    /// `/keys/n`); `rendition` is the rendition's position in the plan.
    public static func merge(
        _ state: inout LiveRendition, rendition: Int, playlist: MediaPlaylist, keys: [PlannedKey],
        record: RecordRequest
    ) throws(PlaylistError) -> Delta {
        var delta = Delta()
        guard !state.ended else { return delta }
        if let target = playlist.targetDuration, target > 0 { state.targetDuration = target }
        var next = state.nextSequence
        let startIndex = next == nil && record.from == .live ? liveEdge(playlist) : 0
        var writer = Writer(state: state, keys: keys, playlist: playlist, rendition: rendition)
        if let expected = next, let last = playlist.segments.last?.mediaSequence, last + 1 + maxGapEntries < expected {
            // The numbering went far back: the packager restarted. Carry on from its first segment.
            next = playlist.segments.first?.mediaSequence
            writer.state.discontinuityPending = true
            writer.state.explicitIVs = true
        }
        for segment in playlist.segments.dropFirst(startIndex) {
            if let expected = next, segment.mediaSequence < expected { continue }
            if let limit = record.durationSeconds, writer.state.seconds >= limit - 0.001 {
                writer.state.ended = true
                break
            }
            let ext = LocalNames.fileExtension(of: segment.uri)
            if let expected = next, segment.mediaSequence > expected {
                let missing = segment.mediaSequence - expected
                if missing <= maxGapEntries {
                    for s in expected..<segment.mediaSequence {
                        writer.gap(sequence: s, duration: writer.state.targetDuration, ext: ext, signalled: false)
                    }
                    delta.missed += missing
                } else {
                    writer.state.explicitIVs = true  // renumbered: see LiveRendition.explicitIVs
                }
                writer.state.discontinuityPending = true
            }
            try writer.segment(segment, ext: ext)
            if !segment.isGap { delta.newSegments += 1 }
            next = segment.mediaSequence + 1
        }
        if playlist.hasEndList { writer.state.ended = true }
        if let limit = record.durationSeconds, writer.state.seconds >= limit - 0.001 { writer.state.ended = true }
        writer.state.nextSequence = next ?? state.nextSequence
        delta.ended = writer.state.ended
        delta.lines = writer.lines
        delta.entries = writer.entries
        delta.newKeys = writer.newKeys
        state = writer.state
        return delta
    }

    /// The index of the first segment at least three target durations from the end (RFC 8216 §6.3.3): where
    /// a recording `--from live` starts.
    public static func liveEdge(_ playlist: MediaPlaylist) -> Int {
        let wanted = 3 * (playlist.targetDuration ?? 6)
        var sum = 0.0
        for (i, segment) in playlist.segments.enumerated().reversed() {
            sum += segment.duration
            if sum >= wanted { return i }
        }
        return 0
    }

    /// The offline playlist of a finished recording: VOD, its target duration at least the longest segment
    /// (rounded to the nearest second), and `EXT-X-ENDLIST`.
    public static func finalText(_ text: String, longest: Double) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while lines.last?.isEmpty == true { lines.removeLast() }
        for i in lines.indices {
            if lines[i] == "#EXT-X-PLAYLIST-TYPE:EVENT" {
                lines[i] = "#EXT-X-PLAYLIST-TYPE:VOD"
            } else if lines[i].hasPrefix("#EXT-X-TARGETDURATION:") {
                let old = Double(lines[i].dropFirst("#EXT-X-TARGETDURATION:".count)) ?? 0
                // RFC 8216 §4.3.3.1: every EXTINF rounded to the nearest integer is at most the target duration.
                lines[i] = "#EXT-X-TARGETDURATION:\(Int(max(old, longest.rounded())))"
            }
        }
        if lines.last != "#EXT-X-ENDLIST" { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes entries and their playlist lines, keeping what is in force.
    struct Writer {
        var state: LiveRendition
        let keys: [PlannedKey]
        let playlist: MediaPlaylist
        let rendition: Int
        var lines: [String] = []
        var entries: [Entry] = []
        var newKeys: [PlannedKey] = []
        /// Whether the playlist header is written (it is with the first entry ever).
        var started: Bool

        init(state: LiveRendition, keys: [PlannedKey], playlist: MediaPlaylist, rendition: Int) {
            self.state = state
            self.keys = keys
            self.playlist = playlist
            self.rendition = rendition
            started = state.nextSequence != nil
        }

        mutating func header(firstSequence: Int) {
            guard !started else { return }
            started = true
            lines.append("#EXTM3U")
            if let version = playlist.version { lines.append("#EXT-X-VERSION:\(version)") }
            lines.append("#EXT-X-TARGETDURATION:\(Int(state.targetDuration.rounded(.up)))")
            lines.append("#EXT-X-MEDIA-SEQUENCE:\(firstSequence)")
            lines.append("#EXT-X-PLAYLIST-TYPE:EVENT")
            if playlist.independentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        }

        var container: (String?) -> Container {
            { [kind = state.kind, hasMap = state.mapSource != nil] ext in
                OfflinePlanner.container(kind: kind, ext: ext, hasMap: hasMap)
            }
        }

        static func defaultExtension(_ container: Container) -> String {
            switch container {
            case .webVTT: "vtt"
            case .fmp4: "m4s"
            case .mpegTS: "ts"
            case .other: "bin"
            }
        }

        /// A placeholder for a segment that is not stored: `EXTINF`, `EXT-X-GAP` and a local name never fetched.
        mutating func gap(sequence: Int, duration: Double, ext: String?, signalled: Bool) {
            header(firstSequence: sequence)
            let container = container(ext)
            let name = "gap-\(padded6(sequence)).\(ext ?? Self.defaultExtension(container))"
            lines.append("#EXTINF:\(Self.number(duration)),")
            lines.append("#EXT-X-GAP")
            lines.append(name)
            entries.append(
                Entry(
                    resource: PlannedResource(
                        kind: state.kind == .subtitles ? .subtitle : .segment, rendition: rendition, url: "",
                        rangeOffset: nil, rangeLength: nil, localPath: "\(state.folder)/\(name)",
                        container: container, encrypted: false, duration: duration),
                    isGap: true))
            state.seconds += duration
        }

        mutating func segment(_ segment: MediaPlaylist.Segment, ext: String?) throws(PlaylistError) {
            header(firstSequence: segment.mediaSequence)
            if segment.discontinuity || state.discontinuityPending {
                lines.append("#EXT-X-DISCONTINUITY")
                state.discontinuityPending = false
            }
            try key(segment)
            try map(segment)
            if let date = segment.programDateTime { lines.append("#EXT-X-PROGRAM-DATE-TIME:\(date)") }
            if segment.isGap {
                gap(sequence: segment.mediaSequence, duration: segment.duration, ext: ext, signalled: true)
                return
            }
            let url = try URIResolver.resolve(segment.uri, against: playlist.url, line: segment.line)
            let container = container(ext)
            let name = "seg-\(padded6(segment.mediaSequence)).\(ext ?? Self.defaultExtension(container))"
            lines.append("#EXTINF:\(Self.number(segment.duration)),")
            lines.append(name)
            entries.append(
                Entry(
                    resource: PlannedResource(
                        kind: state.kind == .subtitles ? .subtitle : .segment, rendition: rendition, url: url,
                        rangeOffset: segment.byteRange?.offset, rangeLength: segment.byteRange?.length,
                        localPath: "\(state.folder)/\(name)", container: container,
                        encrypted: segment.key?.encryptsWholeSegment ?? false, duration: segment.duration),
                    isGap: false))
            state.seconds += segment.duration
            state.longest = max(state.longest, segment.duration)
        }

        /// `EXT-X-KEY` when the key in force changes (rotation): deliverable keys are served at `/keys/n`.
        mutating func key(_ segment: MediaPlaylist.Segment) throws(PlaylistError) {
            guard let key = segment.key, let uri = key.uri else {
                if state.keyInForce != nil {
                    lines.append("#EXT-X-KEY:METHOD=NONE")
                    state.keyInForce = nil
                }
                return
            }
            let absolute = try URIResolver.resolveKey(
                uri, method: key.method, against: playlist.url, line: segment.line)
            let clearKey = key.keyFormat == MediaPlaylist.Key.clearKey
            let iv = key.iv ?? (state.explicitIVs ? Self.iv(segment.mediaSequence) : nil)
            let identity = "\(key.method)|\(absolute)|\(iv ?? "")|\(clearKey ? key.keyID ?? "" : "")"
            guard identity != state.keyInForce else { return }
            let all = keys + newKeys
            let n =
                all.firstIndex { k in
                    k.uri == absolute
                        && (clearKey
                            ? k.keyFormat == MediaPlaylist.Key.clearKey && k.keyID == key.keyID
                            : k.keyFormat == nil)
                } ?? all.count
            if n == all.count {
                newKeys.append(
                    PlannedKey(
                        uri: absolute, method: key.method, keyFormat: clearKey ? MediaPlaylist.Key.clearKey : nil,
                        keyID: key.keyID))
            }
            var attrs = AttributeList()
            attrs.set("METHOD", key.method, quoted: false)
            attrs.setQuoted("URI", OfflinePlanner.keyPath(n))
            if let iv { attrs.set("IV", iv, quoted: false) }
            lines.append("#EXT-X-KEY:" + attrs.text)
            state.keyInForce = identity
        }

        /// `EXT-X-MAP` when the init section changes: a new local init file.
        mutating func map(_ segment: MediaPlaylist.Segment) throws(PlaylistError) {
            guard let map = segment.map else { return }
            let url = try URIResolver.resolve(map.uri, against: playlist.url, line: map.line)
            let identity = "\(url)#\(map.byteRange?.offset ?? -1):\(map.byteRange?.length ?? -1)"
            guard identity != state.mapSource else { return }
            let name = "init-\(state.initCount).\(LocalNames.fileExtension(of: map.uri) ?? "mp4")"
            state.initCount += 1
            state.mapSource = identity
            entries.append(
                Entry(
                    resource: PlannedResource(
                        kind: .initSection, rendition: rendition, url: url, rangeOffset: map.byteRange?.offset,
                        rangeLength: map.byteRange?.length, localPath: "\(state.folder)/\(name)", container: .fmp4,
                        encrypted: map.key?.encryptsWholeSegment ?? false, duration: 0),
                    isGap: false))
            lines.append("#EXT-X-MAP:URI=\"\(name)\"")
        }

        /// The IV a key without one implies for a segment (RFC 8216 §5.2): its media sequence number, 128 bits.
        static func iv(_ sequence: Int) -> String {
            let low = withUnsafeBytes(of: UInt64(sequence).bigEndian, Array.init)
            return "0x" + String(repeating: "0", count: 16) + Hex.encode(low)
        }

        /// A duration as playlists write it (`4`, `3.753`).
        static func number(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? "\(Int(value))" : "\(value)"
        }
    }
}
