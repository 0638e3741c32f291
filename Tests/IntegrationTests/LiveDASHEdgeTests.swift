import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// `--from live` on a live MPD, in both addressing modes: the recording starts at the live edge the DASH-IF
/// guidelines define (the newest available segment, less `suggestedPresentationDelay` when the MPD gives one),
/// not at the oldest segment of the window, and plays frame for frame as the source over the span it recorded.
@Suite("Recording live DASH from the live edge", .serialized)
struct LiveDASHEdgeTests {
    @Test(arguments: [false, true])
    func recordedFromTheLiveEdgeForADurationPlaysAsThatSpanOfTheSource(timeline: Bool) throws {
        let h = try Harness(name: timeline ? "livedash-edge-time" : "livedash-edge-number")
        let live = LiveDASHTests()
        try live.make(h.media, time: timeline, seconds: 20)
        try h.startPipeline()
        // Seven 2 s segments (0 to 14 s) are out when the origin starts, in a window of eight; without
        // `suggestedPresentationDelay` the edge is three segments back (as dash.js and Shaka Player): about 8 s.
        try h.startOrigin(extra: ["--live", "--live-window", "8", "--live-start", "7"])
        let token = try h.submit("manifest.mpd", ["--record", "--duration", "4s", "--from", "live"])
        let final = try h.waitForFinal(token, timeout: 60)
        #expect(final.state == .completed, "\(String(describing: final.error))")
        #expect(final.recordedSeconds == 4 && final.gaps == [], "\(String(describing: final.recordedSeconds))")
        #expect(live.segment404s(h).isEmpty, "\(live.segment404s(h))")
        let expected = try live.sourceFrames(h)
        let played = try live.playedFrames(h, final)
        #expect(played.count == 100, "4 s of 25 frames/s")
        // The span is a run of whole segments (50 frames each), and not the window's oldest ones.
        let start = (0...(expected.count - played.count) / 50).map { $0 * 50 }.first {
            Array(expected[$0..<($0 + played.count)]) == played
        }
        let at = try #require(start, "the recording is no span of the source on segment boundaries")
        #expect(at >= 150, "started near the live edge (about 8 s), not at the oldest segment: frame \(at)")
    }
}
