import Foundation
import StowageProtocol
import StowageRuntime
import StowageStore

/// A recording's fields of `status`: seconds recorded, its gaps and since when its playlist stalled.
extension RecordingComponent {
    /// `recordedSeconds`, `gaps` and `stalledSince`.
    func describe(_ title: TitleRecord, into out: inout TitleStatus) {
        guard title.record != nil, let timeline = try? context.store.timeline(token: title.token) else { return }
        let starts = periodStarts(title)
        var recorded = 0.0
        var gaps: [RecordingGap] = []
        for (rendition, rows) in timeline {
            var at = starts[rendition]?.at ?? 0
            for row in rows {
                if row.state == .gap {
                    gaps.append(RecordingGap(from: at, to: at + row.duration))
                } else if row.state == .verified, starts[rendition]?.counted ?? (rendition == 0) {
                    recorded += row.duration
                }
                at += row.duration
            }
        }
        out.recordedSeconds = (recorded * 1000).rounded() / 1000
        out.gaps = Self.merged(gaps)
        let clock = context.clock
        if title.state == .recording, let since = reloads.stalledSince(title.token, now: clock.monotonic()) {
            out.stalledSince = iso8601(clock.now() - (clock.monotonic() - since))
        }
    }

    /// Where each rendition's timeline starts in the recording's (a live DASH Period's renditions start where the
    /// earlier Periods ended) and whether it is the one whose seconds count as recorded (the first of its Period):
    /// nil for a recording of one timeline per rendition (HLS), whose first rendition counts.
    func periodStarts(_ title: TitleRecord) -> [Int: (at: Double, counted: Bool)] {
        guard title.manifestName != nil, let renditions = try? context.store.renditions(token: title.token) else {
            return [:]
        }
        var out: [Int: (at: Double, counted: Bool)] = [:]
        var seen: Set<Int> = []
        for r in renditions {
            let state = Self.dashState(r)
            let ordinal = state?.ordinal ?? 0
            out[r.position] = (state?.secondsBefore ?? 0, seen.insert(ordinal).inserted)
        }
        return out
    }

    /// Gap ranges of every rendition, overlapping ones merged, in order.
    static func merged(_ gaps: [RecordingGap]) -> [RecordingGap] {
        var out: [RecordingGap] = []
        for g in gaps.sorted(by: { $0.from < $1.from }) {
            if let last = out.last, g.from <= last.to + 0.001 {
                out[out.count - 1].to = max(last.to, g.to)
            } else {
                out.append(RecordingGap(from: (g.from * 1000).rounded() / 1000, to: g.to))
            }
        }
        return out.map { RecordingGap(from: $0.from, to: ($0.to * 1000).rounded() / 1000) }
    }
}
