import Foundation

/// A VOD media playlist served as a live one: a pure value (no I/O, no clock) that renders the live playlist
/// text for an elapsed time, and decides whether a segment may still be served.
///
/// The playlist grows as time passes (``available(at:_:)``); with a window it slides, re-emitting the
/// `EXT-X-KEY` and `EXT-X-MAP` in force so every rendering stands alone, with `EXT-X-MEDIA-SEQUENCE` and
/// `EXT-X-DISCONTINUITY-SEQUENCE` counting what left it (RFC 8216 §6.2.2). Byte ranges are written with explicit
/// offsets. `#EXT-X-ENDLIST` is added once every segment is available.
public struct LivePlaylist: Sendable, Equatable {
    /// A tag line that sets state for the segments after it, and where it was in the VOD playlist.
    public struct ContextLine: Sendable, Equatable {
        /// Its line number in the VOD playlist (orders re-emitted lines as in the source).
        public let line: Int
        /// The tag line.
        public let text: String
        /// Whether it is an `EXT-X-KEY` (else an `EXT-X-MAP`).
        public let isKey: Bool
    }

    /// One media segment of the VOD playlist.
    public struct Segment: Sendable, Equatable {
        /// Its URI line, as written.
        public let uri: String
        /// Its `EXTINF` duration in seconds.
        public let duration: Double
        /// When it ends on the VOD timeline: the sum of the durations up to and including it.
        public let end: Double
        /// Its own tag lines, in order (an `EXT-X-BYTERANGE` always with an explicit offset).
        public let tags: [String]
        /// Whether its own tags include `#EXT-X-DISCONTINUITY`.
        public let discontinuity: Bool
        /// Its byte range (length, offset), if it has one.
        public let byteRange: ByteRange?
        /// The `EXT-X-KEY` lines (not `METHOD=NONE`) and the `EXT-X-MAP` line in force for it, in source order.
        public let context: [ContextLine]
        /// The line number of its first own line (context lines before it are not among its tags).
        public let firstLine: Int
    }

    /// A sub-range of a resource: `length` bytes from `offset`.
    public struct ByteRange: Sendable, Equatable {
        public let length: Int
        public let offset: Int
    }

    /// Why a text cannot be served live.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// The path where the origin serves rotation key `k`.
    public static func keyURI(_ k: Int) -> String { "/live-keys/\(k)" }

    /// The header lines kept (all but the media sequence, discontinuity sequence, playlist type and end list).
    public let header: [String]
    /// The media segments, in order.
    public let segments: [Segment]
    /// The VOD playlist's `EXT-X-MEDIA-SEQUENCE` (0 when absent).
    public let mediaSequence: Int
    /// The VOD playlist's `EXT-X-DISCONTINUITY-SEQUENCE` (0 when absent).
    public let discontinuitySequence: Int
    /// The `METHOD` of the first `EXT-X-KEY` that is not `NONE`, if any (the segments are encrypted).
    public let encryption: String?

    /// Parses a VOD media playlist. Throws when it has no segments or a segment has no `EXTINF`.
    public init(parsing text: String) throws {
        var header: [String] = [], segments: [Segment] = [], tags: [String] = [], context: [ContextLine] = []
        var sequence = 0, discontinuities = 0, encryption: String?, inSegments = false
        var duration: Double?, discontinuity = false, range: (length: Int, offset: Int?)?, firstLine: Int?
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (number, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            guard line.hasPrefix("#") else {
                guard let seconds = duration else {
                    throw Failure("segment \(segments.count) (\(line)) has no #EXTINF")
                }
                var byteRange: ByteRange?
                if let range {
                    let previous = segments.last
                    guard let offset = range.offset ?? previous?.byteRange.map({ $0.offset + $0.length }),
                        range.offset != nil || previous?.uri == line
                    else {
                        throw Failure(
                            "segment \(segments.count) (\(line)): #EXT-X-BYTERANGE without an offset must follow "
                                + "a byte range of the same resource")
                    }
                    byteRange = ByteRange(length: range.length, offset: offset)
                    let explicit = "#EXT-X-BYTERANGE:\(range.length)@\(offset)"
                    tags = tags.map { Self.name($0) == "#EXT-X-BYTERANGE" ? explicit : $0 }
                }
                segments.append(
                    Segment(
                        uri: line, duration: seconds, end: (segments.last?.end ?? 0) + seconds, tags: tags,
                        discontinuity: discontinuity, byteRange: byteRange, context: context,
                        firstLine: firstLine ?? number))
                tags = []
                duration = nil
                discontinuity = false
                range = nil
                firstLine = nil
                inSegments = true
                continue
            }
            let name = Self.name(line), value = line.dropFirst(name.count + 1)
            switch name {
            case "#EXT-X-ENDLIST", "#EXT-X-PLAYLIST-TYPE":
                continue
            case "#EXT-X-MEDIA-SEQUENCE", "#EXT-X-DISCONTINUITY-SEQUENCE":
                guard let n = Int(value.trimmingCharacters(in: .whitespaces)), n >= 0 else {
                    throw Failure("\(name) takes a whole number, not '\(value)'")
                }
                if name == "#EXT-X-MEDIA-SEQUENCE" { sequence = n } else { discontinuities = n }
                continue
            default:
                break
            }
            guard inSegments || Self.segmentTags.contains(name) else {
                header.append(line)
                continue
            }
            inSegments = true
            firstLine = firstLine ?? number
            switch name {
            case "#EXTINF":
                let text = value.prefix { $0 != "," }.trimmingCharacters(in: .whitespaces)
                guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
                    throw Failure("segment \(segments.count): bad #EXTINF duration '\(text)'")
                }
                duration = seconds
            case "#EXT-X-BYTERANGE":
                let parts = value.split(separator: "@", maxSplits: 1).map {
                    Int($0.trimmingCharacters(in: .whitespaces))
                }
                guard let length = parts.first ?? nil, length >= 0, parts.count == 1 || parts[1] != nil else {
                    throw Failure("segment \(segments.count): bad #EXT-X-BYTERANGE '\(value)'")
                }
                range = (length, parts.count == 2 ? parts[1] : nil)
            case "#EXT-X-DISCONTINUITY":
                discontinuity = true
            case "#EXT-X-KEY":
                let method = Self.attribute("METHOD", in: line) ?? "NONE"
                let format = Self.attribute("KEYFORMAT", in: line) ?? "identity"
                context.removeAll {
                    $0.isKey && (method == "NONE" || Self.attribute("KEYFORMAT", in: $0.text) ?? "identity" == format)
                }
                if method != "NONE" {
                    context.append(ContextLine(line: number, text: line, isKey: true))
                    encryption = encryption ?? method
                }
            case "#EXT-X-MAP":
                context.removeAll { !$0.isKey }
                context.append(ContextLine(line: number, text: line, isKey: false))
            default:
                break
            }
            tags.append(line)
        }
        guard !segments.isEmpty else { throw Failure("not a media playlist: it has no segments") }
        self.header = header
        self.segments = segments
        self.mediaSequence = sequence
        self.discontinuitySequence = discontinuities
        self.encryption = encryption
    }

    // MARK: time

    /// How many segments are available `elapsed` seconds after the server started: those whose end divided by
    /// the speed has passed, at least `start`, at most all of them (and at most `stallAfter`).
    public func available(at elapsed: Double, _ options: LiveOptions) -> Int {
        var count = 0
        while count < segments.count, segments[count].end / options.speed <= elapsed + 1e-9 { count += 1 }
        count = min(max(count, options.start), segments.count)
        return options.stallAfter.map { min(count, $0) } ?? count
    }

    /// The index of the first segment in the playlist rendered at `elapsed` (0 without a window).
    public func windowStart(at elapsed: Double, _ options: LiveOptions) -> Int {
        options.window > 0 ? max(0, available(at: elapsed, options) - options.window) : 0
    }

    /// Whether segment `index` may be served at `elapsed`: false once it left the window more than `retain`
    /// segments ago. Segments not yet in the playlist are served (harmless).
    public func isServable(segment index: Int, at elapsed: Double, _ options: LiveOptions) -> Bool {
        guard let retain = options.retain, options.window > 0 else { return true }
        return index >= windowStart(at: elapsed, options) - retain
    }

    // MARK: rendering

    /// Throws when these options cannot serve this playlist: key rotation needs clear segments, each with a
    /// resource of its own (no byte ranges, no URI twice).
    public func check(_ options: LiveOptions) throws {
        guard options.keyEvery != nil else { return }
        if let encryption {
            throw Failure("--live-key-every needs clear segments, but this playlist has EXT-X-KEY METHOD=\(encryption)")
        }
        if segments.contains(where: { $0.byteRange != nil }) {
            throw Failure("--live-key-every cannot encrypt byte-range segments (EXT-X-BYTERANGE)")
        }
        if Set(segments.map(\.uri)).count != segments.count {
            throw Failure("--live-key-every needs each segment in a file of its own, but a URI appears twice")
        }
    }

    /// The live playlist text `elapsed` seconds after the server started.
    public func render(at elapsed: Double, _ options: LiveOptions) -> String {
        let count = available(at: elapsed, options)
        let first = min(windowStart(at: elapsed, options), count)
        var out = header
        out.append("#EXT-X-MEDIA-SEQUENCE:\(mediaSequence + first)")
        if options.window == 0 { out.append("#EXT-X-PLAYLIST-TYPE:EVENT") }
        let removed = (0..<first).filter { segments[$0].discontinuity || options.discontinuityAt.contains($0) }.count
        if discontinuitySequence + removed > 0 {
            out.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence + removed)")
        }
        let rotation = options.keyEvery
        if first < count {
            let segment = segments[first]
            for line in segment.context where line.line < segment.firstLine && !(rotation != nil && line.isKey) {
                out.append(line.text)
            }
        }
        var keyInForce = false
        for index in first..<count {
            let segment = segments[index]
            if options.discontinuityAt.contains(index) && !segment.discontinuity { out.append("#EXT-X-DISCONTINUITY") }
            guard let every = rotation else {
                out += segment.tags
                out.append(segment.uri)
                continue
            }
            // The rotation key goes right before EXTINF; an init section must not follow it (it would be
            // encrypted too, RFC 8216 §4.3.2.5), so a MAP is preceded by METHOD=NONE and the key given again.
            let key = "#EXT-X-KEY:METHOD=AES-128,URI=\"\(Self.keyURI(index / every))\""
            var needsKey = index == first || index % every == 0
            for tag in segment.tags {
                let name = Self.name(tag)
                if name == "#EXT-X-KEY" { continue }
                if name == "#EXT-X-MAP" && keyInForce {
                    out.append("#EXT-X-KEY:METHOD=NONE")
                    keyInForce = false
                    needsKey = true
                }
                if name == "#EXTINF" && needsKey {
                    out.append(key)
                    keyInForce = true
                    needsKey = false
                }
                out.append(tag)
            }
            out.append(segment.uri)
        }
        if count == segments.count { out.append("#EXT-X-ENDLIST") }
        return out.joined(separator: "\n") + "\n"
    }

    /// The 16-byte IV of a segment encrypted without an IV attribute: its media sequence number as a 128-bit
    /// big-endian integer (RFC 8216 §5.2).
    public static func iv(sequence: Int) -> [UInt8] {
        [UInt8](repeating: 0, count: 8) + (0..<8).map { UInt8(truncatingIfNeeded: UInt64(sequence) >> (56 - 8 * $0)) }
    }
}
