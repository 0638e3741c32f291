import StowageProtocol

/// The local `manifest.mpd` of a live DASH recording. The plan writes it once as a template with
/// ``LocalMPDWriter`` (the same forms as a static title's copy) whose timelines, `@presentationTimeOffset`s,
/// starts and durations are placeholders; each Period the recording enters adds its own Period to the template
/// (``adding(_:to:)``); each reload appends `<S t d/>` lines to its rendition, and ``render(_:tracks:)`` fills
/// them in: while recording (so `stowctl play` plays what is there) and once when it ends.
///
/// A track's `@presentationTimeOffset` is its first recorded segment's media time, so each Period starts at its
/// `@start` and its segments keep the times their `tfdt` boxes carry; a gap is a jump of the next `S@t`. A Period
/// lasts as long as its longest track's timeline, and starts where the previous one ended.
public enum LiveDASHManifest {
    /// What a rendition recorded: its first segment's media time and its SegmentTimeline lines.
    public struct Track: Sendable, Equatable {
        public var presentationTimeOffset: UInt64
        public var lines: [String]
        /// Seconds of the rendition's timeline (segments and gaps).
        public var seconds: Double
        /// Indexes of `lines` whose file is not stored (it answered 404 once listed, or kept failing): left out.
        public var missing: Set<Int>
        /// The recorded Period the track belongs to (0 the first).
        public var period: Int

        public init(
            presentationTimeOffset: UInt64, lines: [String], seconds: Double, missing: Set<Int> = [], period: Int = 0
        ) {
            self.presentationTimeOffset = presentationTimeOffset
            self.lines = lines
            self.seconds = seconds
            self.missing = missing
            self.period = period
        }
    }

    /// The whole presentation's duration (and, in templates written before recordings had several Periods, the
    /// one Period's).
    static let durationMarker = "{{duration}}"
    static func startMarker(_ period: Int) -> String { "{{start:\(period)}}" }
    static func periodDurationMarker(_ period: Int) -> String { "{{period-duration:\(period)}}" }
    static func ptoMarker(_ n: Int) -> String { "{{pto:\(n)}}" }
    static func timelineMarker(_ n: Int) -> String { "{{timeline:\(n)}}" }

    /// The template for `period` (its tracks in the plan's rendition order, numbered from `firstTrack`; each with
    /// its initialization and no segment yet), the recording's `ordinal`-th Period.
    public static func template(period: LocalMPDWriter.LocalPeriod, ordinal: Int = 0, firstTrack: Int = 0) -> String {
        let empty = "=\"\(ISODuration.format(0))\""
        var n = firstTrack - 1
        var out: [String] = []
        for line in LocalMPDWriter.write(periods: [period], mediaPresentationDuration: 0).split(
            separator: "\n", omittingEmptySubsequences: false)
        {
            var text = String(line)
            let trimmed = text.drop { $0 == " " }
            if trimmed.hasPrefix("<MPD ") {
                text = text.replacingOccurrences(
                    of: " mediaPresentationDuration" + empty, with: " mediaPresentationDuration=\"\(durationMarker)\"")
            }
            if trimmed.hasPrefix("<Period ") {
                text = text.replacingOccurrences(of: " start" + empty, with: " start=\"\(startMarker(ordinal))\"")
                text = text.replacingOccurrences(
                    of: " duration" + empty, with: " duration=\"\(periodDurationMarker(ordinal))\"")
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

    /// `template` with the Period of `period` (a template of one Period, from ``template(period:ordinal:firstTrack:)``)
    /// added after its last Period.
    public static func adding(_ period: String, to template: String) -> String {
        guard let open = period.range(of: "  <Period "), let close = period.range(of: "</Period>\n"),
            let end = template.range(of: "</MPD>", options: .backwards)
        else { return template }
        var out = template
        out.insert(contentsOf: period[open.lowerBound..<close.upperBound], at: end.lowerBound)
        return out
    }

    /// The manifest with every placeholder filled: `tracks[n]` for the n-th SegmentTemplate, each Period as long as
    /// its longest track and starting where the one before ended, the presentation's duration their sum. Text
    /// without placeholders (a finished recording's) is returned as it is.
    ///
    /// A track with files missing from its timeline is written as a SegmentList over the files it has (the same
    /// timeline without the missing entries): `$Number$` counts timeline entries, so a hole cannot be skipped
    /// in a template without renaming files.
    public static func render(_ template: String, tracks: [Track]) -> String {
        guard template.contains("{{") else { return template }
        let layout = periods(tracks)
        var text = withSegmentLists(template, tracks: tracks)
        text = text.replacingOccurrences(of: durationMarker, with: ISODuration.format(layout.total))
        for (period, (start, duration)) in layout.periods {
            text = text.replacingOccurrences(of: startMarker(period), with: ISODuration.format(start))
            text = text.replacingOccurrences(of: periodDurationMarker(period), with: ISODuration.format(duration))
        }
        for (n, track) in tracks.enumerated() {
            text = text.replacingOccurrences(of: ptoMarker(n), with: String(track.presentationTimeOffset))
            let body = track.lines.map { "            " + $0 }.joined(separator: "\n")
            text = text.replacingOccurrences(of: timelineMarker(n) + "\n", with: body.isEmpty ? "" : body + "\n")
        }
        return text
    }

    /// Each recorded Period's start and duration (its longest track's timeline), and the presentation's total.
    public static func periods(_ tracks: [Track]) -> (periods: [Int: (start: Double, duration: Double)], total: Double)
    {
        var durations: [Int: Double] = [:]
        for track in tracks { durations[track.period] = max(durations[track.period] ?? 0, track.seconds) }
        var out: [Int: (Double, Double)] = [:]
        var start = 0.0
        for period in durations.keys.sorted() {
            out[period] = (start, durations[period] ?? 0)
            start += durations[period] ?? 0
        }
        return (out, start)
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
