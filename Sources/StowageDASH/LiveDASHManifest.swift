import StowageProtocol

/// The local `manifest.mpd` of a live DASH recording. The plan writes it once as a template with
/// ``LocalMPDWriter`` (the same forms as a static title's copy) whose timelines, `@presentationTimeOffset`s and
/// durations are placeholders; each reload appends `<S t d/>` lines to its rendition, and ``render(_:tracks:)``
/// fills them in: while recording (so `stowctl play` plays what is there) and once when it ends.
///
/// A track's `@presentationTimeOffset` is its first recorded segment's media time, so the copy starts at 0 and
/// its segments keep the times their `tfdt` boxes carry; a gap is a jump of the next `S@t`.
public enum LiveDASHManifest {
    /// What a rendition recorded: its first segment's media time and its SegmentTimeline lines.
    public struct Track: Sendable, Equatable {
        public var presentationTimeOffset: UInt64
        public var lines: [String]
        /// Seconds of the rendition's timeline (segments and gaps).
        public var seconds: Double
        /// Indexes of `lines` whose file is not stored (it answered 404 once listed, or kept failing): left out.
        public var missing: Set<Int>

        public init(presentationTimeOffset: UInt64, lines: [String], seconds: Double, missing: Set<Int> = []) {
            self.presentationTimeOffset = presentationTimeOffset
            self.lines = lines
            self.seconds = seconds
            self.missing = missing
        }
    }

    static let durationMarker = "{{duration}}"
    static func ptoMarker(_ n: Int) -> String { "{{pto:\(n)}}" }
    static func timelineMarker(_ n: Int) -> String { "{{timeline:\(n)}}" }

    /// The template for `tracks` (one Period, in the plan's rendition order; each with its initialization and no
    /// segment yet).
    public static func template(period: LocalMPDWriter.LocalPeriod) -> String {
        let empty = "=\"\(ISODuration.format(0))\""
        var n = -1
        var out: [String] = []
        for line in LocalMPDWriter.write(periods: [period], mediaPresentationDuration: 0).split(
            separator: "\n", omittingEmptySubsequences: false)
        {
            var text = String(line)
            let trimmed = text.drop { $0 == " " }
            for attribute in [" mediaPresentationDuration", " duration"]
            where trimmed.hasPrefix("<MPD ") || trimmed.hasPrefix("<Period ") {
                text = text.replacingOccurrences(of: attribute + empty, with: "\(attribute)=\"\(durationMarker)\"")
            }
            if trimmed.hasPrefix("<SegmentTemplate ") {
                n += 1
                text = text.replacingOccurrences(
                    of: "<SegmentTemplate ", with: "<SegmentTemplate presentationTimeOffset=\"\(ptoMarker(n))\" ")
            }
            out.append(text)
            if trimmed.hasPrefix("<SegmentTimeline>") { out.append(timelineMarker(n)) }
        }
        return out.joined(separator: "\n")
    }

    /// The manifest with every placeholder filled: `tracks[n]` for the n-th SegmentTemplate, and the presentation's
    /// duration the longest track's. Text without placeholders (a finished recording's) is returned as it is.
    ///
    /// A track with files missing from its timeline is written as a SegmentList over the files it has (the same
    /// timeline without the missing entries): `$Number$` counts timeline entries, so a hole cannot be skipped
    /// in a template without renaming files.
    public static func render(_ template: String, tracks: [Track]) -> String {
        guard template.contains("{{") else { return template }
        let longest = tracks.map(\.seconds).max() ?? 0
        var text = withSegmentLists(template, tracks: tracks)
        text = text.replacingOccurrences(of: durationMarker, with: ISODuration.format(longest))
        for (n, track) in tracks.enumerated() {
            text = text.replacingOccurrences(of: ptoMarker(n), with: String(track.presentationTimeOffset))
            let body = track.lines.map { "            " + $0 }.joined(separator: "\n")
            text = text.replacingOccurrences(of: timelineMarker(n) + "\n", with: body.isEmpty ? "" : body + "\n")
        }
        return text
    }

    /// `template` with the SegmentTemplate of each track that has missing files replaced by a SegmentList naming
    /// the files it has (its timeline lines filtered the same way).
    static func withSegmentLists(_ template: String, tracks: [Track]) -> String {
        guard tracks.contains(where: { !$0.missing.isEmpty }) else { return template }
        var out: [String] = []
        var n = -1
        var skipping = false
        for line in template.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.drop { $0 == " " }
            if skipping {
                if trimmed.hasPrefix("</SegmentTemplate>") { skipping = false }
                continue
            }
            guard trimmed.hasPrefix("<SegmentTemplate ") else {
                out.append(line)
                continue
            }
            n += 1
            guard tracks.indices.contains(n), !tracks[n].missing.isEmpty else {
                out.append(line)
                continue
            }
            let track = tracks[n]
            let indent = String(line.prefix { $0 == " " })
            let timescale = attribute("timescale", in: line) ?? "1"
            let media = attribute("media", in: line) ?? ""
            out.append(
                "\(indent)<SegmentList presentationTimeOffset=\"\(track.presentationTimeOffset)\""
                    + " timescale=\"\(timescale)\">")
            if let initialization = attribute("initialization", in: line) {
                out.append("\(indent)  <Initialization sourceURL=\"\(initialization)\"/>")
            }
            out.append("\(indent)  <SegmentTimeline>")
            var urls: [String] = []
            for (i, s) in track.lines.enumerated() where !track.missing.contains(i) {
                out.append("\(indent)    \(s)")
                let digits = String(i + 1)
                let number = String(repeating: "0", count: max(0, 5 - digits.count)) + digits
                let file = media.replacingOccurrences(of: "$Number%05d$", with: number)
                urls.append("\(indent)  <SegmentURL media=\"\(file)\"/>")
            }
            out.append("\(indent)  </SegmentTimeline>")
            out += urls
            out.append("\(indent)</SegmentList>")
            skipping = true
        }
        return out.joined(separator: "\n")
    }

    /// The value of attribute `name` in one line of the template.
    static func attribute(_ name: String, in line: String) -> String? {
        guard let start = line.range(of: " \(name)=\""),
            let end = line.range(of: "\"", range: start.upperBound..<line.endIndex)
        else { return nil }
        return String(line[start.upperBound..<end.lowerBound])
    }
}
