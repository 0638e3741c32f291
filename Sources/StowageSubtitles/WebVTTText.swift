import Foundation

/// WebVTT text read into cues and written back: one file (a sidecar, one HLS segment) or the segments of an HLS
/// subtitle rendition joined onto the presentation's timeline.
///
/// Times of HLS segments: a segment's `X-TIMESTAMP-MAP=MPEGTS:<ticks>,LOCAL:<time>` says which media time (90 kHz)
/// its cue time `LOCAL` stands for. The player's timeline starts at the presentation's first media time, which a
/// segmented WebVTT rendition's first map names (packagers map `LOCAL` 0 to it), so a cue at `t` in a segment
/// mapped `(ticks, local)` is at `t - local + (ticks - firstTicks) / 90000`. A segment without a map keeps its
/// times.
public enum WebVTTText {
    /// The cues of the segments of one rendition (each one file's text, in playlist order), moved by their maps
    /// and merged (``SubtitleCue/merged(_:)``). `names` (the files, for errors) match `segments` one to one.
    public static func joined(_ segments: [String], names: [String]) throws(SubtitleError) -> [SubtitleCue] {
        var cues: [SubtitleCue] = []
        var firstTicks: Double?
        for (index, segment) in segments.enumerated() {
            let name = index < names.count ? names[index] : ""
            let lines = Self.lines(segment)
            var shift = 0.0
            if let map = lines.first(where: { $0.hasPrefix("X-TIMESTAMP-MAP=") }), let (ticks, local) = parseMap(map) {
                let first = firstTicks ?? ticks
                firstTicks = first
                shift = (ticks - first) / 90000 - local
            }
            for cue in try parse(lines, file: name) {
                cues.append(
                    SubtitleCue(
                        start: cue.start + shift, end: cue.end + shift, settings: cue.settings,
                        text: cue.text))
            }
        }
        return SubtitleCue.merged(cues)
    }

    /// The cues of one WebVTT file, times as written.
    public static func cues(_ text: String, file: String = "") throws(SubtitleError) -> [SubtitleCue] {
        try parse(lines(text), file: file)
    }

    /// A WebVTT document of `cues` (times clamped at 0, milliseconds).
    public static func document(_ cues: [SubtitleCue]) -> String {
        var out = "WEBVTT\n"
        for cue in cues {
            out += "\n\(timestamp(cue.start)) --> \(timestamp(cue.end))"
            out += cue.settings.isEmpty ? "\n" : " \(cue.settings)\n"
            out += cue.text + "\n"
        }
        return out
    }

    /// The file's lines, a byte order mark and CR line ends removed.
    static func lines(_ text: String) -> [Substring] {
        var body = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        if body.hasPrefix("\u{FEFF}") { body.removeFirst() }
        return body.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The cues of one file's lines: each block with a timing line; headers, NOTE, STYLE and REGION blocks
    /// skipped. A file that does not start `WEBVTT`, or a timing line whose times cannot be read, is malformed.
    static func parse(_ lines: [Substring], file: String) throws(SubtitleError) -> [SubtitleCue] {
        guard let first = lines.first, first.hasPrefix("WEBVTT") else {
            throw SubtitleError(.malformed, file: file, "not a WebVTT file (it does not start with WEBVTT)")
        }
        var cues: [SubtitleCue] = []
        var index = 1
        while index < lines.count {
            let line = lines[index]
            index += 1
            guard line.contains("-->") else { continue }
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count >= 3, parts[1] == "-->", let start = seconds(parts[0]), let end = seconds(parts[2])
            else {
                throw SubtitleError(
                    .malformed, file: file, "line \(index): '\(line.prefix(80))' is no cue timing line")
            }
            var text: [Substring] = []
            while index < lines.count, !lines[index].trimmingCharacters(in: .whitespaces).isEmpty {
                text.append(lines[index])
                index += 1
            }
            cues.append(
                SubtitleCue(
                    start: start, end: end, settings: parts.dropFirst(3).joined(separator: " "),
                    text: text.joined(separator: "\n")))
        }
        return cues
    }

    /// `MPEGTS:<ticks>,LOCAL:<time>` in either order.
    static func parseMap(_ line: Substring) -> (ticks: Double, local: Double)? {
        var ticks: Double?, local: Double?
        for field in line.dropFirst("X-TIMESTAMP-MAP=".count).split(separator: ",") {
            let pair = field.split(separator: ":", maxSplits: 1)
            guard pair.count == 2 else { continue }
            if pair[0] == "MPEGTS" { ticks = Double(pair[1]) }
            if pair[0] == "LOCAL" { local = seconds(pair[1]) }
        }
        guard let ticks, let local, ticks.isFinite, ticks >= 0 else { return nil }
        return (ticks, local)
    }

    /// `hh:mm:ss.ttt` or `mm:ss.ttt` in seconds.
    static func seconds(_ text: Substring) -> Double? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count) else { return nil }
        var total = 0.0
        for field in fields {
            guard let value = Double(field), value >= 0, value.isFinite else { return nil }
            total = total * 60 + value
        }
        return total
    }

    /// Seconds as `hh:mm:ss.ttt` (negative times, from a map before the first, clamp to 0).
    static func timestamp(_ seconds: Double) -> String {
        let millis = Int((max(seconds, 0) * 1000).rounded())
        let h = millis / 3_600_000, m = millis / 60000 % 60, s = millis / 1000 % 60, ms = millis % 1000
        return String(format: "%02d:%02d:%02d.%03d", h, m, s, ms)
    }
}
