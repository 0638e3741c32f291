import StowageProtocol

/// The segments of one media playlist a clip (`submit --range`) keeps, and how its offline text changes: every
/// segment whose media time overlaps the range is kept (each rendition by its own segment durations), the lines
/// of the others are left out, and `EXT-X-MEDIA-SEQUENCE` / `EXT-X-DISCONTINUITY-SEQUENCE` name the first kept
/// segment, so an AES-128 segment without an IV keeps its ORIGINAL sequence number as IV offline too.
/// `EXT-X-KEY` tags stay where they were (the one in force for the first kept segment still precedes it) and an
/// `EXT-X-MAP` is written for the kept segments that use it.
public struct ClipCut: Sendable, Equatable {
    /// Indices into `playlist.segments` of the kept segments (contiguous).
    public var kept: Range<Int>
    /// 1-based lines of the source left out of the offline playlist (the dropped segments' own tags and URIs).
    public var droppedLines: Set<Int>
    /// The offline playlist's `EXT-X-MEDIA-SEQUENCE` and `EXT-X-DISCONTINUITY-SEQUENCE`.
    public var mediaSequence: Int
    public var discontinuitySequence: Int
    /// Where the kept segments begin and end, seconds of media time.
    public var span: ClipRange

    /// Tags that belong to the segment they precede (RFC 8216 §4.3.2): left out with it.
    static let segmentTags: Set<String> = [
        "#EXTINF", "#EXT-X-BYTERANGE", "#EXT-X-DISCONTINUITY", "#EXT-X-PROGRAM-DATE-TIME", "#EXT-X-GAP",
        "#EXT-X-BITRATE",
    ]

    /// The cut of `playlist` to `range`. `primary` (the title's video, or its only playlist) refuses a range that
    /// starts at or after its end, naming its length; another rendition that ends before the range starts keeps
    /// its last segment, so every rendition still plays.
    public init(_ playlist: MediaPlaylist, range: ClipRange, primary: Bool) throws(PlaylistError) {
        let segments = playlist.segments
        var starts: [Double] = []
        var t = 0.0
        for s in segments {
            starts.append(t)
            t += s.duration
        }
        let total = t
        let first = segments.indices.first { starts[$0] + segments[$0].duration > range.from }
        if primary && first == nil {
            throw PlaylistError(
                .nothingSelectable, url: playlist.url, line: nil,
                "--range \(range) starts at or after the end of the title, which is \(Self.seconds(total)) long")
        }
        let lower = first ?? max(0, segments.count - 1)
        var upper = lower
        while upper < segments.count, upper == lower || starts[upper] < range.to { upper += 1 }
        kept = lower..<upper
        let from = starts.isEmpty ? 0 : starts[lower]
        span = ClipRange(from: from, to: from + segments[kept].reduce(0) { $0 + $1.duration })
        mediaSequence = playlist.mediaSequence + lower
        var dropped = Set<Int>()
        var discontinuities = 0
        var previousLine = 0
        for (n, segment) in segments.enumerated() {
            let lines = (previousLine + 1)...segment.line
            previousLine = segment.line
            if n > lower && n < upper { continue }
            for line in lines {
                let text = playlist.lines[line - 1]
                let name = String(PlaylistLines.tag(text).name)
                // The first kept segment's own discontinuity is counted, not written: nothing precedes it offline.
                if name == "#EXT-X-DISCONTINUITY" {
                    if n <= lower { discontinuities += 1 }
                    if n == lower { dropped.insert(line) }
                }
                if n != lower && ((text.hasPrefix("#") && Self.segmentTags.contains(name)) || line == segment.line) {
                    dropped.insert(line)
                }
            }
        }
        droppedLines = dropped
        discontinuitySequence = Self.discontinuitySequence(of: playlist) + discontinuities
        sourceTags = Set(playlist.lines.filter { $0.hasPrefix("#EXT-X-") }.map { String(PlaylistLines.tag($0).name) })
    }

    /// `EXT-X-DISCONTINUITY-SEQUENCE` of the source (0 when absent).
    static func discontinuitySequence(of playlist: MediaPlaylist) -> Int {
        for line in playlist.lines where line.hasPrefix("#EXT-X-DISCONTINUITY-SEQUENCE:") {
            return Int(PlaylistLines.tag(line).value.trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }

    /// The offline line for source line `line` (`text`), nil to leave it out, or the header lines to write in
    /// its place.
    func rewrite(_ text: Substring, line: Int) -> [String]? {
        if droppedLines.contains(line) { return nil }
        switch PlaylistLines.tag(text).name {
        case "#EXT-X-MEDIA-SEQUENCE": return ["#EXT-X-MEDIA-SEQUENCE:\(mediaSequence)"]
        case "#EXT-X-DISCONTINUITY-SEQUENCE": return ["#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)"]
        case "#EXTM3U":
            // Sequence tags the source lacks (its numbers started at 0) are written after the header.
            var out = [String(text)]
            if !hasTag("#EXT-X-MEDIA-SEQUENCE") && mediaSequence > 0 {
                out.append("#EXT-X-MEDIA-SEQUENCE:\(mediaSequence)")
            }
            if !hasTag("#EXT-X-DISCONTINUITY-SEQUENCE") && discontinuitySequence > 0 {
                out.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)")
            }
            return out
        default: return [String(text)]
        }
    }

    /// The names of the source's `EXT-X-` tags.
    var sourceTags: Set<String>
    func hasTag(_ name: String) -> Bool { sourceTags.contains(name) }

    static func seconds(_ s: Double) -> String {
        s == s.rounded() ? "\(Int64(s)) s" : "\((s * 1000).rounded() / 1000) s"
    }
}
