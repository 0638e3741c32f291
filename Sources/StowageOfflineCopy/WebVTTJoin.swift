import Foundation

/// A segmented WebVTT subtitle rendition (one small `.vtt` per HLS segment) joined into one WebVTT file, for a
/// `<track>` element: browsers do not reliably expose an HLS subtitle rendition of a natively played stream, but
/// every one of them shows a `<track>`.
///
/// Times: a segment's `X-TIMESTAMP-MAP=MPEGTS:<ticks>,LOCAL:<time>` says which media time (90 kHz) its cue time
/// `LOCAL` stands for. The player's timeline starts at the presentation's first media time, which a segmented
/// WebVTT rendition's first map names (packagers map `LOCAL` 0 to it), so a cue at `t` in a segment mapped
/// `(ticks, local)` is at `t - local + (ticks - firstTicks) / 90000` in the joined file. A segment without a map
/// keeps its times. A cue repeated in consecutive segments (one that spans a boundary) is written once.
public enum WebVTTJoin {
    public struct Cue: Equatable, Sendable {
        public var start: Double
        public var end: Double
        /// What follows the end time on the timing line (position, alignment…).
        public var settings: String
        public var text: String
    }

    /// The joined file of `segments` (each one segment's text, in playlist order).
    public static func join(_ segments: [String]) -> String {
        var cues: [Cue] = []
        var firstTicks: Double?
        for segment in segments {
            let lines = segment.replacingOccurrences(of: "\r\n", with: "\n").split(
                separator: "\n", omittingEmptySubsequences: false)
            var shift = 0.0
            if let map = lines.first(where: { $0.hasPrefix("X-TIMESTAMP-MAP=") }), let (ticks, local) = parseMap(map) {
                let first = firstTicks ?? ticks
                firstTicks = first
                shift = (ticks - first) / 90000 - local
            }
            for cue in parseCues(lines) {
                var moved = cue
                moved.start += shift
                moved.end += shift
                if !cues.contains(moved) { cues.append(moved) }
            }
        }
        var out = "WEBVTT\n"
        for cue in cues {
            out += "\n\(timestamp(cue.start)) --> \(timestamp(cue.end))"
            out += cue.settings.isEmpty ? "\n" : " \(cue.settings)\n"
            out += cue.text + "\n"
        }
        return out
    }

    /// The cues of one segment's lines: each block with a timing line; headers, NOTE, STYLE and REGION blocks skipped.
    static func parseCues(_ lines: [Substring]) -> [Cue] {
        var cues: [Cue] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            guard line.contains("-->") else { continue }
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 3, parts[1] == "-->", let start = seconds(parts[0]), let end = seconds(parts[2])
            else { continue }
            var text: [Substring] = []
            while index < lines.count, !lines[index].trimmingCharacters(in: .whitespaces).isEmpty {
                text.append(lines[index])
                index += 1
            }
            cues.append(
                Cue(
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
        let fields = text.split(separator: ":")
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
