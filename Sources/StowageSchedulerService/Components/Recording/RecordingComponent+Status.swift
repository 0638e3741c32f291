import Foundation
import StowageProtocol
import StowageRuntime
import StowageStore

/// A recording's fields of `status`: seconds recorded, its gaps and since when its playlist stalled.
extension RecordingComponent {
    /// `recordedSeconds`, `gaps` and `stalledSince`.
    func describe(_ title: TitleRecord, into out: inout TitleStatus) {
        guard title.record != nil, let timeline = try? context.store.timeline(token: title.token) else { return }
        var recorded = 0.0
        var gaps: [RecordingGap] = []
        for (rendition, rows) in timeline {
            var at = 0.0
            for row in rows {
                if row.state == .gap {
                    gaps.append(RecordingGap(from: at, to: at + row.duration))
                } else if row.state == .verified, rendition == 0 {
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
