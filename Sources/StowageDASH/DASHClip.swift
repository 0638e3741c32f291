import StowageProtocol

/// A clip of an MPD (`submit --range`): each chosen Representation keeps the segments whose presentation time
/// overlaps the range (by its own segment durations), and the local MPD describes only those. The first kept
/// Period's tracks have their `presentationTimeOffset` moved to the clip's start (the first kept video segment),
/// so a player starts there rather than at an empty stretch; every kept Period is placed after the one before.
/// Segment-encrypted Representations (`sea:`) are refused: their crypto periods count segments from the first.
public enum DASHClip {
    /// The inputs cut to `range`, the Periods' new starts, and the span the first input (the video) keeps.
    public struct Cut: Sendable {
        public var inputs: [DASHPlanner.Input]
        /// Seconds from the title's start, on the first input's segment boundaries.
        public var span: ClipRange
    }

    /// The cut of `inputs` (in Period order, video first in each) of `mpd` to `range`; refused, naming the
    /// length, when the range starts at or after the title's end.
    public static func cut(_ inputs: [DASHPlanner.Input], of mpd: MPD, to range: ClipRange) throws(DASHError) -> Cut {
        let total =
            mpd.duration
            ?? inputs.map { mpd.periods[$0.period].start + $0.segments.duration }.max() ?? 0
        guard range.from < total else {
            throw DASHError(
                .nothingSelectable,
                "--range \(range) starts at or after the end of the title, which is \(Self.seconds(total)) long")
        }
        for input in inputs {
            let set = mpd.periods[input.period].adaptationSets[input.track.adaptationSet]
            if set.representations[input.track.representation].contentProtections.contains(where: {
                $0.segmentEncryption != nil
            }) {
                throw DASHError(
                    .unsupported, element: "ContentProtection",
                    "--range cannot cut segment-encrypted (sea:) media: its crypto periods count from the first "
                        + "segment; download the whole title")
            }
        }
        var kept: [DASHPlanner.Input] = []
        for var input in inputs {
            let start = mpd.periods[input.period].start
            input.segments.segments = input.segments.segments.filter {
                start + $0.start < range.to && start + $0.start + $0.duration > range.from
            }
            if !input.segments.segments.isEmpty { kept.append(input) }
        }
        guard let first = kept.first, let head = first.segments.segments.first else {
            throw DASHError(.nothingSelectable, "--range \(range) holds no segment of the chosen Representations")
        }
        let clipStart = mpd.periods[first.period].start + head.start
        // The span of the first input's kind (the video): its first track in each kept Period.
        var seen = Set<Int>()
        let length = kept.filter { $0.track.kind == first.track.kind && seen.insert($0.period).inserted }
            .reduce(0) { $0 + $1.segments.duration }
        // The first Period's tracks start at the clip: their offset moves by what the clip leaves out of it.
        let shift = head.start
        for i in kept.indices where kept[i].period == first.period {
            let timescale = Double(kept[i].segments.timescale)
            let ticks = (shift * timescale).rounded()
            kept[i].segments.presentationTimeOffset &+= UInt64(max(0, ticks))
            for j in kept[i].segments.segments.indices { kept[i].segments.segments[j].start -= shift }
        }
        return Cut(inputs: kept, span: ClipRange(from: clipStart, to: clipStart + length))
    }

    /// The local Periods of a clip: each as long as its first track (the video) keeps, each after the one before
    /// (the first at 0). Audio kept past the video's ends is cut off by the Period's end, as at the source.
    static func periodStarts(_ periods: [LocalMPDWriter.LocalPeriod]) -> [LocalMPDWriter.LocalPeriod] {
        var out = periods
        var at = 0.0
        for i in out.indices {
            out[i].start = at
            out[i].duration = out[i].tracks.first?.segments.duration
            at += out[i].effectiveDuration
        }
        return out
    }

    static func seconds(_ s: Double) -> String {
        s == s.rounded() ? "\(Int64(s)) s" : "\((s * 1000).rounded() / 1000) s"
    }
}
