/// `SegmentTimeline`: runs of segments with explicit start times and durations (timescale units).
public struct SegmentTimeline: Sendable, Equatable {
    /// One `S` element: a segment at `time` (nil = where the previous run ended), lasting `duration`,
    /// repeated `repeatCount` more times (`-1` = until the next `S@t` or the end of the period).
    public struct Entry: Sendable, Equatable {
        public var time: UInt64?
        public var duration: UInt64
        public var repeatCount: Int64

        public init(time: UInt64? = nil, duration: UInt64, repeatCount: Int64 = 0) {
            self.time = time
            self.duration = duration
            self.repeatCount = repeatCount
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry]) {
        self.entries = entries
    }

    static func parse(_ node: XMLNode) throws(DASHError) -> SegmentTimeline {
        var entries: [Entry] = []
        for s in node.children("S") {
            guard let duration = try s.unsigned("d") else { throw DASHError.missing("S", "d") }
            guard duration > 0 else { throw DASHError.invalid("S", "d", "0", "a positive duration") }
            let repeatCount = try s.signed("r") ?? 0
            guard repeatCount >= -1 else {
                throw DASHError.invalid("S", "r", String(repeatCount), "a repeat count of -1 or more")
            }
            entries.append(Entry(time: try s.unsigned("t"), duration: duration, repeatCount: repeatCount))
        }
        guard !entries.isEmpty else {
            throw DASHError(.malformed, element: "SegmentTimeline", "SegmentTimeline has no S element")
        }
        return SegmentTimeline(entries: entries)
    }

    /// One segment of an expanded timeline, in timescale units.
    struct Slot: Equatable {
        var time: UInt64
        var duration: UInt64
    }

    /// Every segment of the timeline, in order. `end` is the end of the period in timescale units (needed only by
    /// `r="-1"` on the last `S`). Refuses more than `limit` segments before building them.
    func expand(end: UInt64?, limit: Int) throws(DASHError) -> [Slot] {
        var slots: [Slot] = []
        var next: UInt64 = 0
        for (index, entry) in entries.enumerated() {
            var time = entry.time ?? next
            let count: Int64
            if entry.repeatCount >= 0 {
                count = entry.repeatCount == Int64.max ? Int64.max : entry.repeatCount + 1
            } else {
                let following = index + 1 < entries.count ? entries[index + 1].time : nil
                guard let stop = following ?? end else {
                    throw DASHError(
                        .unsupported, element: "S", attribute: "r",
                        "S@r='-1' on the last S needs the period's duration, which the MPD does not give")
                }
                let span = stop > time ? stop - time : 0
                count = Int64(clamping: span / entry.duration + (span % entry.duration == 0 ? 0 : 1))
            }
            guard count <= Int64(limit - slots.count) else {
                throw DASHError(
                    .tooLarge, element: "S", attribute: "r",
                    "S@r=\(entry.repeatCount) makes the timeline longer than \(limit) segments")
            }
            for _ in 0..<count {
                let (after, overflow) = time.addingReportingOverflow(entry.duration)
                guard !overflow else {
                    throw DASHError(.invalidAttribute, element: "S", attribute: "d", "S@t + S@d overflows")
                }
                slots.append(Slot(time: time, duration: entry.duration))
                time = after
            }
            next = time
        }
        return slots
    }

    /// `slots` without those that start at or after `end` (the Period's end, timescale units), the last kept one
    /// shortened to end there. Packagers that write whole fragments describe more than the presentation holds;
    /// the origin has nothing past the end (404), so asking for it would fail the title.
    static func cut(_ slots: [Slot], at end: UInt64?) -> [Slot] {
        guard let end else { return slots }
        var kept = Array(slots.prefix { $0.time < end })
        // `last.time < end`, so the subtraction cannot overflow (nor `time + duration`, which is never formed).
        if let last = kept.last, end - last.time < last.duration { kept[kept.count - 1].duration = end - last.time }
        return kept
    }
}
