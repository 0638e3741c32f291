import Foundation
import StowageProtocol
import Testing

@testable import StowageStore

/// The fill-window columns (v16) and the narrow query the scheduler reads every second.
@Suite("Store: fill windows")
struct StoreWindowsTests {
    func title(_ token: String, _ state: TitleState, at: Double) -> TitleRecord {
        TitleRecord(
            token: token, url: "http://h/\(token).m3u8", name: nil, state: state, priority: 0, selection: Selection(),
            headers: [], requestedAt: at)
    }

    @Test(arguments: Engine.allCases) func onlyTitlesAWindowMayHoldOrReleaseAreRead(_ engine: Engine) throws {
        let store = try engine.store()
        var own = title("own", .downloading, at: 1)
        own.fillWindow = "01:00-06:00"
        var waiting = title("waiting", .suspended, at: 2)
        waiting.suspendedReason = .window
        var now = title("now", .requested, at: 3)
        now.fetchNow = true
        var recording = title("recording", .requested, at: 4)
        recording.record = RecordRequest()
        for t in [own, waiting, now, recording, title("done", .completed, at: 5), title("preloaded", .licensed, at: 6)]
        {
            try store.insert(t)
        }
        #expect(try store.title("own")?.fillWindow == "01:00-06:00", "stored and read back")
        #expect(try store.title("now")?.fetchNow == true)
        #expect(
            try store.windowedTitles(boxWindow: true) == [
                WindowedTitle(token: "own", state: .downloading, suspendedReason: nil, fillWindow: "01:00-06:00"),
                WindowedTitle(token: "waiting", state: .suspended, suspendedReason: .window, fillWindow: nil),
            ])
        #expect(
            try store.windowedTitles(boxWindow: false).map(\.token) == ["own", "waiting"],
            "no box window: their own, and those still waiting for one")
    }
}
