import Foundation
import StowageDASH

/// A static MPD served live by `stowage-origin serve --live` (as ``LivePlaylist`` does for HLS): the same text made
/// `type="dynamic"` with an `availabilityStartTime`, a `minimumUpdatePeriod`, a `timeShiftBufferDepth` for the
/// window and a `UTCTiming` pointing at the origin's clock; a `SegmentTimeline` lists only the segments that are
/// complete and in the window (its `@startNumber` moved with the window), `@duration` templates stay as they are
/// (the client computes). Once the whole presentation is available it turns static again: the original text.
///
/// Several Periods are served as a live presentation that changes Period: a Period appears once the origin's
/// clock reaches its `@start` (an ad break, a programme change), the newest one shown has no `@duration` (it is
/// still going), and each Period's timeline and segment availability count from its own start; each Period's
/// relative `BaseURL` is part of its segments' paths.
///
/// It also knows which request paths are its media segments, to refuse with 404 one asked for before it exists:
/// what a box with a wrong clock would do.
struct LiveMPD: Sendable {
    /// One SegmentTemplate of the MPD and its segments' end times.
    struct Track: Sendable {
        /// The opening `<SegmentTemplate …>` tag's range in the text, and its timeline block's (nil: `@duration`).
        var tag: Range<String.Index>
        var timelineBlock: Range<String.Index>?
        var timescale: Double
        var presentationTimeOffset: UInt64
        var startNumber: UInt64
        /// `@duration` in timescale units (nil with a timeline).
        var duration: UInt64?
        /// A timeline's segments (media time, duration).
        var slots: [(time: UInt64, duration: UInt64)]
        /// Matches this track's media segment paths (root-relative), capturing `$Number$` or `$Time$`.
        var media: String?
        var byTime: Bool
        /// Seconds from the presentation's start at which the track's Period starts.
        var periodStart: Double = 0

        /// Seconds from the Period's start at which segment `number` (or at media time `time`) is complete.
        func end(ofCaptured value: UInt64) -> Double? {
            if let duration {
                guard value >= startNumber else { return nil }
                return Double(value - startNumber + 1) * Double(duration) / timescale
            }
            let index: Int? =
                byTime ? slots.firstIndex { $0.time == value } : (value >= startNumber ? Int(value - startNumber) : nil)
            guard let index, slots.indices.contains(index) else { return nil }
            let slot = slots[index]
            return (Double(slot.time + slot.duration) - Double(presentationTimeOffset)) / timescale
        }
    }

    /// One Period of the MPD: its whole element's range in the text, its opening tag's, and its start (seconds).
    struct PeriodBlock: Sendable {
        var block: Range<String.Index>
        var tag: Range<String.Index>
        var start: Double
    }

    let text: String
    let periods: [PeriodBlock]
    /// `mediaPresentationDuration`, seconds.
    let total: Double
    /// The first track's segment duration, seconds (the unit of the window and of `--live-start`).
    let segmentDuration: Double
    let tracks: [Track]

    /// Reads the static MPD at root-relative `path` (its directory anchors segment paths); throws naming what is
    /// missing when it cannot be served live.
    init(parsing text: String, path: String) throws {
        self.text = text
        guard text.contains("type=\"static\"") else { throw LivePlaylist.Failure("\(path): not a static MPD") }
        guard let total = Self.attribute("mediaPresentationDuration", in: text).flatMap(ISODuration.seconds) else {
            throw LivePlaylist.Failure("\(path): a live DASH stream needs MPD@mediaPresentationDuration")
        }
        self.total = total
        let dir = (path as NSString).deletingLastPathComponent
        periods = Self.periods(in: text)
        var tracks: [Track] = []
        var searchFrom = text.startIndex
        while let open = text.range(of: "<SegmentTemplate", range: searchFrom..<text.endIndex),
            let close = text.range(of: ">", range: open.upperBound..<text.endIndex)
        {
            let tag = open.lowerBound..<close.upperBound
            let tagText = String(text[tag])
            searchFrom = close.upperBound
            let ts = Self.attribute("timescale", in: tagText).flatMap { Double($0) } ?? 1
            let pto = Self.attribute("presentationTimeOffset", in: tagText).flatMap { UInt64($0) } ?? 0
            var block: Range<String.Index>?
            var slots: [(UInt64, UInt64)] = []
            if !tagText.hasSuffix("/>"),
                let end = text.range(of: "</SegmentTemplate>", range: searchFrom..<text.endIndex),
                let start = text.range(of: "<SegmentTimeline", range: searchFrom..<end.lowerBound),
                let stop = text.range(of: "</SegmentTimeline>", range: start.upperBound..<end.lowerBound)
            {
                block = start.lowerBound..<stop.upperBound
                slots = Self.expand(String(text[block!]))
            }
            let media = Self.attribute("media", in: tagText) ?? ""
            let representation = Self.enclosingRepresentation(text, before: open.lowerBound)
            let period = periods.last { $0.block.contains(open.lowerBound) }
            let base = period.flatMap { Self.baseURL(in: String(text[$0.block])) } ?? ""
            let folder = base.isEmpty ? dir : (dir as NSString).appendingPathComponent(base)
            tracks.append(
                Track(
                    tag: tag, timelineBlock: block, timescale: ts, presentationTimeOffset: pto,
                    startNumber: Self.attribute("startNumber", in: tagText).flatMap { UInt64($0) } ?? 1,
                    duration: block == nil ? Self.attribute("duration", in: tagText).flatMap { UInt64($0) } : nil,
                    slots: slots, media: Self.pattern(media, dir: folder, representation: representation),
                    byTime: media.contains("$Time"), periodStart: period?.start ?? 0))
        }
        guard let first = tracks.first else { throw LivePlaylist.Failure("\(path): no SegmentTemplate to serve live") }
        segmentDuration =
            first.duration.map { Double($0) / first.timescale }
            ?? first.slots.first.map { Double($0.duration) / first.timescale } ?? 2
        self.tracks = tracks
    }

    /// The MPD as served when `liveTime` seconds of the presentation exist (origin clock `now`, the presentation
    /// anchored at `availabilityStart`), with the window of `window` segments (0: all kept) and its clock at
    /// `timeURL`.
    func render(liveTime: Double, now: Double, availabilityStart: Double, window: Int, timeURL: String) -> String {
        if liveTime >= total { return text }
        let depth = window > 0 ? Double(window) * segmentDuration : nil
        var edits: [(range: Range<String.Index>, text: String)] = []
        // Periods not begun yet are left out; the newest begun has no end yet.
        let begun = periods.filter { $0.start <= liveTime }
        for period in periods where period.start > liveTime { edits.append((period.block, "")) }
        if let newest = begun.last, periods.count > 1 {
            edits.append((newest.tag, Self.removing("duration", from: String(text[newest.tag]))))
        }
        for track in tracks where track.periodStart <= liveTime {
            guard let block = track.timelineBlock else { continue }
            let now = liveTime - track.periodStart
            var kept: [(UInt64, UInt64)] = []
            var skipped: UInt64 = 0
            for slot in track.slots {
                let end = (Double(slot.time + slot.duration) - Double(track.presentationTimeOffset)) / track.timescale
                guard end <= now else { break }
                if let depth, end < now - depth {
                    skipped += 1
                    continue
                }
                kept.append(slot)
            }
            let lines = kept.map { "<S t=\"\($0.0)\" d=\"\($0.1)\"/>" }.joined()
            edits.append((block, "<SegmentTimeline>\(lines)</SegmentTimeline>"))
            let tag = Self.setting("startNumber", to: String(track.startNumber + skipped), in: String(text[track.tag]))
            edits.append((track.tag, tag))
        }
        var out = text
        // Replace from the end so earlier ranges stay valid.
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            out.replaceSubrange(edit.range, with: edit.text)
        }
        if let open = out.range(of: "<MPD"), let close = out.range(of: ">", range: open.upperBound..<out.endIndex) {
            let range = open.lowerBound..<close.upperBound
            var tag = String(out[range]).replacingOccurrences(of: "type=\"static\"", with: "type=\"dynamic\"")
            tag = Self.removing("mediaPresentationDuration", from: tag)
            var added =
                " availabilityStartTime=\"\(XSDateTime.format(availabilityStart))\""
                + " publishTime=\"\(XSDateTime.format(now))\" minimumUpdatePeriod=\"PT1S\""
            if let depth { added += " timeShiftBufferDepth=\"\(ISODuration.format(depth))\"" }
            tag.insert(contentsOf: added, at: tag.index(before: tag.endIndex))
            out.replaceSubrange(range, with: tag)
        }
        let timing = "  <UTCTiming schemeIdUri=\"urn:mpeg:dash:utc:http-xsdate:2014\" value=\"\(timeURL)\"/>\n"
        if let close = out.range(of: "</MPD>", options: .backwards) {
            out.insert(contentsOf: timing, at: close.lowerBound)
        }
        return out
    }

    /// Whether root-relative `path` is one of this MPD's media segments complete at `liveTime` (nil: not one of its
    /// segments).
    func isAvailable(path: String, liveTime: Double) -> Bool? {
        for track in tracks {
            guard let pattern = track.media, let media = try? NSRegularExpression(pattern: pattern),
                let match = media.firstMatch(in: path, range: NSRange(path.startIndex..., in: path)),
                let range = Range(match.range(at: 1), in: path), let value = UInt64(path[range])
            else { continue }
            guard let end = track.end(ofCaptured: value) else { return false }
            return track.periodStart + end <= liveTime + 0.001
        }
        return nil
    }

    /// The Periods of `text`, each starting at its `@start`, else where the one before ends (its `@duration`),
    /// else 0.
    static func periods(in text: String) -> [PeriodBlock] {
        var out: [PeriodBlock] = []
        var from = text.startIndex
        var nextStart = 0.0
        while let open = text.range(of: "<Period", range: from..<text.endIndex),
            let close = text.range(of: ">", range: open.upperBound..<text.endIndex)
        {
            let tag = open.lowerBound..<close.upperBound
            let tagText = String(text[tag])
            let end =
                tagText.hasSuffix("/>")
                ? close.upperBound
                : text.range(of: "</Period>", range: close.upperBound..<text.endIndex)?.upperBound ?? text.endIndex
            from = end
            guard let next = tagText.dropFirst(7).first, next == " " || next == ">" || next == "\t" || next == "\n"
            else { continue }
            let start = attribute("start", in: tagText).flatMap(ISODuration.seconds) ?? nextStart
            nextStart = start + (attribute("duration", in: tagText).flatMap(ISODuration.seconds) ?? 0)
            out.append(PeriodBlock(block: open.lowerBound..<end, tag: tag, start: start))
        }
        return out
    }

    /// The relative `BaseURL` a Period's element `period` gives before its first AdaptationSet (nil: none, or an
    /// absolute one).
    static func baseURL(in period: String) -> String? {
        let head = period.range(of: "<AdaptationSet").map { period[..<$0.lowerBound] } ?? period[...]
        guard let open = head.range(of: "<BaseURL>"),
            let close = head.range(of: "</BaseURL>", range: open.upperBound..<head.endIndex)
        else { return nil }
        let value = head[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        return value.contains("://") || value.hasPrefix("/") || value.isEmpty ? nil : value
    }

    /// Every `(t, d)` of a SegmentTimeline block (`S@t`, `@d`, `@r`; `r="-1"` is not expanded).
    static func expand(_ block: String) -> [(UInt64, UInt64)] {
        var out: [(UInt64, UInt64)] = []
        var next: UInt64 = 0
        var from = block.startIndex
        while let open = block.range(of: "<S ", range: from..<block.endIndex),
            let close = block.range(of: ">", range: open.upperBound..<block.endIndex)
        {
            let s = String(block[open.lowerBound..<close.upperBound])
            from = close.upperBound
            guard let d = attribute("d", in: s).flatMap({ UInt64($0) }), d > 0 else { continue }
            var t = attribute("t", in: s).flatMap { UInt64($0) } ?? next
            let r = max(0, attribute("r", in: s).flatMap { Int($0) } ?? 0)
            for _ in 0...min(r, 100_000) {
                out.append((t, d))
                t += d
            }
            next = t
        }
        return out
    }

    /// The value of ` name="…"` in `text` (the first).
    static func attribute(_ name: String, in text: String) -> String? {
        guard
            let start = text.range(of: " \(name)=\"") ?? text.range(of: "\t\(name)=\"")
                ?? text.range(of: "\n\(name)=\""),
            let end = text.range(of: "\"", range: start.upperBound..<text.endIndex)
        else { return nil }
        return String(text[start.upperBound..<end.lowerBound])
    }

    static func removing(_ name: String, from tag: String) -> String {
        guard let value = attribute(name, in: tag) else { return tag }
        for space in [" ", "\t", "\n"] {
            let whole = "\(space)\(name)=\"\(value)\""
            if tag.contains(whole) { return tag.replacingOccurrences(of: whole, with: "") }
        }
        return tag
    }

    static func setting(_ name: String, to value: String, in tag: String) -> String {
        var tag = removing(name, from: tag)
        let at = tag.hasSuffix("/>") ? tag.index(tag.endIndex, offsetBy: -2) : tag.index(before: tag.endIndex)
        tag.insert(contentsOf: " \(name)=\"\(value)\"", at: at)
        return tag
    }

    /// The `@id` of the Representation a SegmentTemplate at `index` is inside (nil: it is at a higher level).
    static func enclosingRepresentation(_ text: String, before index: String.Index) -> String? {
        let head = text[..<index]
        guard let open = head.range(of: "<Representation ", options: .backwards) else { return nil }
        if let close = head.range(of: "</Representation>", options: .backwards), close.lowerBound > open.lowerBound {
            return nil
        }
        let tagEnd = head.range(of: ">", range: open.upperBound..<head.endIndex)?.upperBound ?? head.endIndex
        return attribute("id", in: String(head[open.lowerBound..<tagEnd]))
    }

    /// A regular expression for the media segment paths of `template` under `dir`, capturing the number or time.
    static func pattern(_ template: String, dir: String, representation: String?) -> String? {
        let prefix = dir.isEmpty || dir.hasSuffix("/") ? dir : dir + "/"
        var regex = "^" + NSRegularExpression.escapedPattern(for: prefix)
        var rest = Substring(template)
        var captured = false
        while let open = rest.firstIndex(of: "$") {
            regex += NSRegularExpression.escapedPattern(for: String(rest[..<open]))
            let after = rest.index(after: open)
            guard let close = rest[after...].firstIndex(of: "$") else { return nil }
            let name = rest[after..<close]
            if name.hasPrefix("Number") || name.hasPrefix("Time") {
                regex += captured ? "[0-9]+" : "([0-9]+)"
                captured = true
            } else if name == "RepresentationID" {
                regex += representation.map(NSRegularExpression.escapedPattern(for:)) ?? "[^/]+"
            } else if name.hasPrefix("Bandwidth") {
                regex += "[0-9]+"
            } else {
                regex += "\\$"
            }
            rest = rest[rest.index(after: close)...]
        }
        regex += NSRegularExpression.escapedPattern(for: String(rest)) + "$"
        return captured ? regex : nil
    }
}
