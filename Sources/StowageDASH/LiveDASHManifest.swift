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

        public init(presentationTimeOffset: UInt64, lines: [String], seconds: Double) {
            self.presentationTimeOffset = presentationTimeOffset
            self.lines = lines
            self.seconds = seconds
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
    public static func render(_ template: String, tracks: [Track]) -> String {
        guard template.contains("{{") else { return template }
        let longest = tracks.map(\.seconds).max() ?? 0
        var text = template.replacingOccurrences(of: durationMarker, with: ISODuration.format(longest))
        for (n, track) in tracks.enumerated() {
            text = text.replacingOccurrences(of: ptoMarker(n), with: String(track.presentationTimeOffset))
            let body = track.lines.map { "            " + $0 }.joined(separator: "\n")
            text = text.replacingOccurrences(of: timelineMarker(n) + "\n", with: body.isEmpty ? "" : body + "\n")
        }
        return text
    }
}
