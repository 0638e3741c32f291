import StowageProtocol

/// Takes what is new in a reloaded live MPD for one recorded Representation (DASH-IF IOP v4.3 §4.3): the segments
/// that exist now on the origin's clock (``LiveSegments``) after the last one taken, a gap for those that left the
/// time-shift window before they were seen, when to reload next, and the end — the MPD turned `static`, got a
/// `mediaPresentationDuration`, or its recorded Period got a duration and every segment of it was taken (then
/// ``LiveDASHPeriods`` decides whether a next Period carries the recording on) — or the requested duration. Pure:
/// the scheduler stores what it returns and fetches the new files like any title's.
///
/// The local copy names each segment `seg-<n>` in the order taken and keeps the source's media times in a
/// SegmentTimeline (one `<S t d/>` line per segment, ``Delta/lines``), so a gap is a jump of `t` and nothing else.
public enum LiveDASHRecorder {
    /// One file (or gap placeholder) of the offline copy.
    public struct Entry: Sendable, Equatable {
        public var resource: PlannedResource
        /// Nothing to fetch: segments that left the window unseen (one entry for the whole stretch).
        public var isGap: Bool
    }

    /// What a reload adds.
    public struct Delta: Sendable, Equatable {
        /// SegmentTimeline lines to append to the rendition's local timeline.
        public var lines: [String] = []
        public var entries: [Entry] = []
        /// Segments taken, and segments that had left the window unseen.
        public var newSegments = 0
        public var missed = 0
        /// The rendition ended with this reload, and why.
        public var ended = false
        public var endReason: String?
        /// Something new: segments, a gap, or the end.
        public var changed: Bool { newSegments > 0 || missed > 0 || ended }
    }

    /// Merges the MPD `mpd`, read when the origin's clock said `now` (seconds since 1970), into `state`.
    /// `rendition` is the rendition's position in the plan.
    public static func merge(
        _ state: inout LiveDASHRendition, rendition: Int, mpd: MPD, now: Double, record: RecordRequest
    ) throws(DASHError) -> Delta {
        var delta = Delta()
        guard !state.ended else { return delta }
        guard let (period, set, representation) = find(state, in: mpd) else {
            state.periodEnded = true
            return finish(&state, &delta, "the recorded Period is no longer in the MPD")
        }
        guard case .template(let template) = representation.segmentInformation else {
            throw DASHError.missing(
                "SegmentTemplate", "media", "a live Representation is recorded from a SegmentTemplate")
        }
        if let live = mpd.live { state.availabilityStartTime = live.availabilityStartTime }
        let ast = mpd.live?.availabilityStartTime ?? state.availabilityStartTime ?? 0
        // A static MPD (the live stream ended) has every segment of its Period available, and no window.
        let timing =
            mpd.live ?? LiveTiming(availabilityStartTime: ast)
        let segments = LiveSegments(
            timing: timing, template: template, periodStart: period.start, periodDuration: period.duration)
        let at = mpd.type == .static ? ast + period.start + (period.duration ?? 0) + 1 : now
        let timescale = Double(template.timescale ?? 1)
        let typical = template.duration.map { Double($0) / timescale } ?? typicalDuration(template, timescale)
        state.targetDuration = max(0.5, min(typical, mpd.live?.minimumUpdatePeriod ?? typical))
        if mpd.type == .dynamic { state.timeShiftBufferDepth = mpd.live?.timeShiftBufferDepth }
        state.periodStart = period.start
        state.presentationTimeOffset = template.presentationTimeOffset ?? 0
        state.timescale = template.timescale ?? 1

        // `--duration` counts the whole recording: the Periods before this one too.
        let limit = record.durationSeconds.map { $0 - (state.secondsBefore ?? 0) }
        var slots: [LiveSegments.Slot]
        if let last = state.lastNumber {
            slots = try segments.available(now: at, after: last)
        } else if record.from == .live, mpd.type == .dynamic, state.ordinal == 0 {
            guard let edge = try segments.liveEdge(now: at) else { return delta }
            slots = try segments.available(now: at, after: edge.number > 0 ? edge.number - 1 : nil)
        } else {
            slots = try segments.available(now: at)
        }
        let track = LocalTrack(
            kind: state.kind, adaptationSet: set, representation: representation,
            segments: RepresentationSegments(initialization: nil, timescale: template.timescale ?? 1, segments: []),
            folder: state.folder)
        let encrypted = ProtectionSummary(representation.contentProtections).isEncrypted
        let kind: PlannedResource.Kind = state.kind == .subtitles ? .subtitle : .segment
        for slot in slots {
            if let limit, state.seconds >= limit - 0.001 {
                return finish(&state, &delta, "the requested duration was recorded")
            }
            if let last = state.lastNumber, slot.number > last + 1 {
                let missing = slot.number - last - 1
                let seconds =
                    state.nextTime.map { slot.time > $0 ? Double(slot.time - $0) / timescale : 0 }
                    ?? Double(missing) * typical
                delta.entries.append(
                    Entry(
                        resource: PlannedResource(
                            kind: kind, rendition: rendition, url: "", rangeOffset: nil, rangeLength: nil,
                            localPath: "\(state.folder)/gap-\(slot.number).\(track.segmentExtension)",
                            container: track.container, encrypted: false, duration: seconds),
                        isGap: true))
                delta.missed += Int(clamping: missing)
                state.seconds += seconds
            }
            let location = try segments.location(of: slot, in: representation)
            let seconds = Double(slot.duration) / timescale
            var resource = PlannedResource(
                kind: kind, rendition: rendition, url: location.url, rangeOffset: location.range?.offset,
                rangeLength: location.range?.length, localPath: track.segmentPath(state.count),
                container: track.container, encrypted: encrypted, duration: seconds)
            if location.urls.count > 1 { resource.alternates = Array(location.urls.dropFirst()) }
            delta.entries.append(Entry(resource: resource, isGap: false))
            delta.lines.append("<S t=\"\(slot.time)\" d=\"\(slot.duration)\"/>")
            delta.newSegments += 1
            state.firstTime = state.firstTime ?? slot.time
            state.lastNumber = slot.number
            state.nextTime = slot.time &+ slot.duration
            state.count += 1
            state.seconds += seconds
        }
        if let limit, state.seconds >= limit - 0.001 {
            return finish(&state, &delta, "the requested duration was recorded")
        }
        if let (reason, periodOnly) = try ended(segments, state: state, mpd: mpd, period: period, now: at) {
            state.periodEnded = periodOnly
            return finish(&state, &delta, reason)
        }
        return delta
    }

    /// Why nothing more will come, or nil: the presentation's or the Period's end was reached (every segment up
    /// to it taken), or the availability ended. `periodOnly`: only this Period is over; a later Period (one the MPD
    /// lists already, or one still to be announced while the MPD stays dynamic without a duration) carries the
    /// recording on (``LiveDASHPeriods``).
    static func ended(
        _ segments: LiveSegments, state: LiveDASHRendition, mpd: MPD, period: Period, now: Double
    ) throws(DASHError) -> (reason: String, periodOnly: Bool)? {
        if let end = segments.timing.availabilityEndTime, now > end {
            return ("the MPD's availabilityEndTime passed", false)
        }
        let later = mpd.periods.contains { $0.start > period.start + 0.001 }
        guard let length = period.duration else {
            return mpd.type == .static ? ("the MPD turned static", later) : nil
        }
        // Every segment that the Period will ever have, seen from after its end without a window.
        let all = LiveSegments(
            timing: LiveTiming(availabilityStartTime: segments.timing.availabilityStartTime),
            template: segments.template, periodStart: period.start, periodDuration: length)
        let after = segments.timing.availabilityStartTime + period.start + length + 1
        guard try all.available(now: after, after: state.lastNumber, limit: 1).isEmpty else { return nil }
        if later { return ("the recorded Period ended", true) }
        if mpd.type == .static { return ("the MPD turned static", false) }
        return mpd.mediaPresentationDuration != nil
            ? ("the MPD got a mediaPresentationDuration", false) : ("the recorded Period ended", true)
    }

    private static func finish(_ state: inout LiveDASHRendition, _ delta: inout Delta, _ reason: String) -> Delta {
        state.ended = true
        delta.ended = true
        delta.endReason = reason
        return delta
    }

    /// The Period, AdaptationSet and Representation `state` records, found by the Period's id and start (an id
    /// may come again in a later Period; a Period without an id by its start, else its index) and the
    /// Representation's id.
    static func find(_ state: LiveDASHRendition, in mpd: MPD) -> (Period, AdaptationSet, Representation)? {
        let named = mpd.periods.filter { state.periodID == nil || $0.id == state.periodID }
        let period =
            state.periodStart.flatMap { start in named.first { abs($0.start - start) < 0.001 } }
            ?? (state.periodID != nil
                ? named.first
                : (state.periodStart == nil && mpd.periods.indices.contains(state.periodIndex)
                    ? mpd.periods[state.periodIndex] : nil))
        guard let period else { return nil }
        let sets =
            period.adaptationSets.indices.contains(state.adaptationSet)
            ? [period.adaptationSets[state.adaptationSet]] + period.adaptationSets : period.adaptationSets
        for set in sets {
            if let r = set.representations.first(where: { $0.id == state.representationID }) { return (period, set, r) }
        }
        return nil
    }

    /// The first listed segment's duration, seconds (2 when the timeline is empty).
    static func typicalDuration(_ template: SegmentTemplate, _ timescale: Double) -> Double {
        guard let first = template.timeline?.entries.first, first.duration > 0 else { return 2 }
        return Double(first.duration) / timescale
    }
}
