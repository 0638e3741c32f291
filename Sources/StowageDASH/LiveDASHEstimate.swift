import StowageProtocol

/// What recording a dynamic MPD takes, per hour of recording (`stowctl estimate URL.mpd` of a live stream): a live
/// presentation has no length to multiply by, so the answer is a rate. The Representations are the ones
/// `submit --record` would choose (``LiveDASHPlanner``, which also refuses what a recording refuses), each counted
/// at its `@bandwidth` for an hour, its files one segment duration apart plus its initialization segment.
public enum LiveDASHEstimate {
    /// The span an estimate of a live stream is given for: one hour.
    public static let seconds: Double = 3_600

    /// Bytes and files of one hour of recording `mpd` with `selection`.
    public static func perHour(mpd: MPD, selection: Selection) throws(DASHError) -> (bytes: Int64, files: Int) {
        let planned = try LiveDASHPlanner.plan(mpd: mpd, selection: selection)
        guard let choice = try RepresentationSelector.select(mpd, selection).first else { return (0, 0) }
        let period = mpd.periods[choice.period]
        var bytes: [Int64] = []
        var files = planned.plan.resources.count  // the initialization segments
        for track in choice.tracks {
            let representation = period.adaptationSets[track.adaptationSet].representations[track.representation]
            bytes.append(OutsideNumbers.estimate(bitsPerSecond: representation.bandwidth, seconds: seconds))
            guard case .template(let template) = representation.segmentInformation else { continue }
            let timescale = Double(template.timescale ?? 1)
            let duration =
                template.duration.map { Double($0) / timescale }
                ?? LiveDASHRecorder.typicalDuration(template, timescale)
            // A segment shorter than a millisecond is malformed: counted as one, the count stays within 3.6 million.
            files += Int((seconds / max(duration, 0.001)).rounded(.up))
        }
        return (OutsideNumbers.sum(bytes), files)
    }
}
