import Foundation

/// Which segments of one live Representation exist at a moment of the origin's clock, following the DASH-IF
/// interoperability guidelines (IOP v4.3 §4.3) as dash.js and Shaka Player apply them:
///
/// - with `SegmentTemplate@duration` (`$Number$`), segment *k* of the Period starts at `k·d` and becomes available
///   once complete: at `availabilityStartTime + Period@start + (k+1)·d − availabilityTimeOffset`;
/// - with a `SegmentTimeline`, each listed segment likewise, from its `S@t` less `@presentationTimeOffset`;
/// - it stays available while its end is within `timeShiftBufferDepth` of now, and never after
///   `availabilityEndTime` or past the Period's end.
///
/// A pure value: the recording asks it at each tick with the origin's clock (``OriginClock``), so nothing is asked
/// for before it exists (no 404 storm) and what left the window is known for a gap.
public struct LiveSegments: Sendable {
    /// One available segment.
    public struct Slot: Sendable, Equatable {
        /// `$Number$`.
        public var number: UInt64
        /// `$Time$`: media time in timescale units.
        public var time: UInt64
        /// Timescale units.
        public var duration: UInt64
        /// Seconds from the Period's start.
        public var start: Double
        /// Origin-clock seconds since 1970 from which the segment can be fetched.
        public var availableAt: Double
    }

    public let timing: LiveTiming
    public let template: SegmentTemplate
    /// `Period@start` and the Period's duration when known (a Period that ended, or the MPD's last one once the
    /// presentation got a duration).
    public let periodStart: Double
    public let periodDuration: Double?

    public init(timing: LiveTiming, template: SegmentTemplate, periodStart: Double, periodDuration: Double?) {
        self.timing = timing
        self.template = template
        self.periodStart = periodStart
        self.periodDuration = periodDuration
    }

    var timescale: Double { Double(template.timescale ?? 1) }
    var startNumber: UInt64 { template.startNumber ?? 1 }
    /// The availability time offset, never more than a segment early (`INF` would ask for segments not yet made).
    func earliness(_ duration: Double) -> Double { min(template.availabilityTimeOffset ?? 0, duration) }
    /// Seconds since the Period started, on the origin's clock.
    func elapsed(_ now: Double) -> Double { now - timing.availabilityStartTime - periodStart }

    /// The segments available at `now` (origin clock) whose number is above `after` (nil: from the oldest still in
    /// the window), oldest first, at most `limit`.
    public func available(now: Double, after: UInt64? = nil, limit: Int = 10_000) throws(DASHError) -> [Slot] {
        if let end = timing.availabilityEndTime, now > end { return [] }
        let all = try candidates(now: now, after: after, limit: limit)
        let windowStart = timing.timeShiftBufferDepth.map { elapsed(now) - $0 } ?? -.infinity
        return Array(
            all.lazy.filter { slot in
                let length = Double(slot.duration) / timescale
                return slot.availableAt <= now && slot.start + length >= windowStart
            }
            .prefix(max(0, limit)))
    }

    /// The segment a recording `--from live` starts with: the one holding the live edge less the suggested
    /// presentation delay (else three segment durations), or the newest available if that is older; nil when
    /// nothing is available yet.
    public func liveEdge(now: Double) throws(DASHError) -> Slot? {
        let recent = try available(now: now, after: nil, limit: .max)
        guard let newest = recent.last else { return nil }
        let typical = Double(newest.duration) / timescale
        let target = timing.liveEdge(now: now, fallbackDelay: 3 * typical) - periodStart
        return recent.last { $0.start <= target } ?? recent.first
    }

    /// The segments that may be available: complete ones up to `now`, inside the Period, above `after`.
    private func candidates(now: Double, after: UInt64?, limit: Int) throws(DASHError) -> [Slot] {
        let offset = template.presentationTimeOffset ?? 0
        if let timeline = template.timeline {
            let horizon = min(elapsed(now) + (template.availabilityTimeOffset ?? 0), periodDuration ?? .infinity)
            guard horizon > 0 else { return [] }
            let end = offset.addingReportingOverflow(ticks(horizon * timescale))
            let slots = try timeline.expand(
                end: end.overflow ? .max : end.partialValue, limit: SegmentAddresser.maxSegments)
            var out: [Slot] = []
            for (index, slot) in slots.enumerated() {
                let number = startNumber.addingReportingOverflow(UInt64(index))
                guard !number.overflow, slot.time >= offset else { continue }
                if let after, number.partialValue <= after { continue }
                let start = Double(slot.time - offset) / timescale
                if let periodDuration, start >= periodDuration { break }
                let length = Double(slot.duration) / timescale
                out.append(
                    Slot(
                        number: number.partialValue, time: slot.time, duration: slot.duration, start: start,
                        availableAt: timing.availabilityStartTime + periodStart + start + length - earliness(length)))
            }
            return out
        }
        guard let durationTicks = template.duration else {
            throw DASHError.missing(
                "SegmentTemplate", "duration", "a live Representation needs it or a SegmentTimeline")
        }
        let d = Double(durationTicks) / timescale
        // Segment k is complete once (k+1)·d − earliness has elapsed: k ≤ (elapsed + earliness) / d − 1.
        var last = ((elapsed(now) + earliness(d)) / d).rounded(.down) - 1
        if let periodDuration { last = min(last, (periodDuration / d - 1e-9).rounded(.up) - 1) }
        if let end = template.endNumber { last = min(last, Double(end) - Double(startNumber)) }
        var first = 0.0
        if let depth = timing.timeShiftBufferDepth { first = max(0, ((elapsed(now) - depth) / d).rounded(.up) - 1) }
        if let after { first = max(first, Double(after) - Double(startNumber) + 1) }
        last = min(last, first + Double(max(0, min(limit, SegmentAddresser.maxSegments))) - 1)
        guard last >= first, last.isFinite, last < 1e15 else { return [] }
        var out: [Slot] = []
        for k in UInt64(first)...UInt64(last) {
            let (number, overflowN) = startNumber.addingReportingOverflow(k)
            let (product, overflowP) = k.multipliedReportingOverflow(by: durationTicks)
            let (time, overflowT) = offset.addingReportingOverflow(product)
            guard !overflowN, !overflowP, !overflowT else {
                throw DASHError.invalid(
                    "SegmentTemplate", "duration", "\(durationTicks)", "usable: segment numbers overflow")
            }
            let start = Double(k) * d
            var length = durationTicks
            if let periodDuration, start + d > periodDuration {
                length = max(1, ticks((periodDuration - start) * timescale))
            }
            out.append(
                Slot(
                    number: number, time: time, duration: length, start: start,
                    availableAt: timing.availabilityStartTime + periodStart + start + d - earliness(d)))
        }
        return out
    }
}
