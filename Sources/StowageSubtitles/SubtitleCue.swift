import Foundation

/// One cue of a subtitle track on the title's presentation timeline: what every source format (segmented WebVTT,
/// `wvtt` or `stpp` in fMP4, a TTML or WebVTT sidecar) is read into, and what the `.vtt` and `.srt` writers take.
/// Times are seconds from the start of the presentation; text is WebVTT cue text (markup kept, `&`, `<` and `>`
/// escaped), so the WebVTT writer keeps every styling WebVTT can carry and the SRT writer decides what to drop.
public struct SubtitleCue: Equatable, Sendable {
    public var start: Double
    public var end: Double
    /// What follows the end time on a WebVTT timing line (position, alignment…); empty when none.
    public var settings: String
    /// The cue's WebVTT text (lines joined by `\n`).
    public var text: String

    public init(start: Double, end: Double, settings: String = "", text: String) {
        self.start = start
        self.end = end
        self.settings = settings
        self.text = text
    }

    /// Cues in time order, with what packagers write more than once made whole again: a cue repeated in
    /// consecutive segments or samples (one that spans a boundary, cut in two by the packager) is written once,
    /// from its first start to its last end. Only a cue with the same text and settings that starts where (or
    /// before) the kept one ends is joined to it; exact duplicates go.
    public static func merged(_ cues: [SubtitleCue]) -> [SubtitleCue] {
        var out: [SubtitleCue] = []
        // The last kept cue of each text and settings: the only one a later cue can continue (one pass, not a
        // search of every kept cue: a two-hour track has thousands).
        var last: [String: Int] = [:]
        // Stable sort: cues that start together keep the order the source gave them.
        let sorted = cues.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
        for cue in sorted.map(\.element) where cue.end > cue.start {
            let key = cue.settings + "\u{0}" + cue.text
            if let index = last[key], cue.start <= out[index].end + 0.0005 {
                out[index].end = max(out[index].end, cue.end)
                continue
            }
            last[key] = out.count
            out.append(cue)
        }
        return out
    }
}
