import Foundation
import StowageProtocol
import Testing

@testable import StowageSchedulerCore

/// The scheduler's window decision as a pure value: which titles wait, which carry on, at a wall-clock time.
@Suite("Fill windows in the scheduler")
struct FillWindowsTests {
    static let utc = TimeZone(identifier: "UTC")!

    static func at(_ hhmm: String) -> Date {
        // 2026-11-26 in UTC, at HH:MM.
        let parts = hhmm.split(separator: ":").compactMap { Double($0) }
        return Date(timeIntervalSince1970: 1_795_651_200 + parts[0] * 3600 + parts[1] * 60)
    }

    static func box(_ text: String = "01:00-06:00") throws -> FillWindows {
        FillWindows(box: try FillSchedule(parsing: text), timeZone: utc)
    }

    @Test func fetchingTitlesWaitOutsideTheWindowAndKnowWhenItOpens() throws {
        let w = try Self.box()
        let opening = Self.at("01:00") + 86_400
        for state in [TitleState.requested, .licensing, .downloading] {
            #expect(
                w.verdict(state: state, reason: nil, window: nil, at: Self.at("07:00")) == .hold(nextOpening: opening))
            #expect(w.verdict(state: state, reason: nil, window: nil, at: Self.at("02:00")) == .keep)
        }
        // Nothing to hold: preloaded, only checks left, ended.
        for state in [TitleState.licensed, .verifying, .completed, .failed, .canceled] {
            #expect(w.verdict(state: state, reason: nil, window: nil, at: Self.at("07:00")) == .keep)
        }
        #expect(w.nextOpening(window: nil, after: Self.at("07:00")) == opening)
    }

    @Test func onlyATitleWaitingForItsWindowIsReleasedWhenItOpens() throws {
        let w = try Self.box()
        #expect(w.verdict(state: .suspended, reason: .window, window: nil, at: Self.at("01:00")) == .release)
        #expect(w.verdict(state: .suspended, reason: .window, window: nil, at: Self.at("00:59")) == .keep)
        for reason in [SuspendedReason.paused, .diskFull, .network] {
            #expect(
                w.verdict(state: .suspended, reason: reason, window: nil, at: Self.at("02:00")) == .keep,
                "a title \(reason) stays so")
        }
    }

    @Test func aTitlesOwnWindowReplacesTheBoxs() throws {
        let w = try Self.box()
        #expect(w.verdict(state: .downloading, reason: nil, window: "12:00-13:00", at: Self.at("12:30")) == .keep)
        #expect(
            w.verdict(state: .downloading, reason: nil, window: "12:00-13:00", at: Self.at("02:00"))
                == .hold(nextOpening: Self.at("12:00")))
        let none = FillWindows(timeZone: Self.utc)
        #expect(none.verdict(state: .requested, reason: nil, window: nil, at: Self.at("07:00")) == .keep)
        #expect(
            none.verdict(state: .suspended, reason: .window, window: nil, at: Self.at("07:00")) == .release,
            "no window applies any more (the box's was removed at a restart)")
    }

    @Test func nowAndRecordingsAreNeverHeld() throws {
        let w = try Self.box()
        #expect(w.holds(window: nil, now: false, recording: false, at: Self.at("07:00")))
        #expect(!w.holds(window: nil, now: true, recording: false, at: Self.at("07:00")))
        #expect(!w.holds(window: "12:00-13:00", now: true, recording: false, at: Self.at("07:00")))
        #expect(!w.holds(window: nil, now: false, recording: true, at: Self.at("07:00")))
    }

    @Test func aWallClockStepMovesTheDecision() throws {
        let w = try Self.box()
        // Downloading at 05:59:59, the clock stepped an hour forward: the window is closed.
        #expect(w.verdict(state: .downloading, reason: nil, window: nil, at: Self.at("05:59") + 59) == .keep)
        #expect(
            w.verdict(state: .downloading, reason: nil, window: nil, at: Self.at("05:59") + 59 + 3600)
                == .hold(nextOpening: Self.at("01:00") + 86_400))
        // Waiting at 00:30, the clock stepped back from 01:00: it waits on.
        #expect(w.verdict(state: .suspended, reason: .window, window: nil, at: Self.at("00:30")) == .keep)
    }

    @Test func theBandwidthCapFollowsTheScheduleUnlessOneIsSetExplicitly() throws {
        var limits = LimitState()
        limits.schedule = try BandwidthSchedule(parsing: "01:00-06:00=unlimited,*=2000000")
        /// The cap after following the schedule at `hhmm`, and whether it changed.
        func follow(_ hhmm: String) -> (cap: Int64?, changed: Bool) {
            let changed = limits.followSchedule(at: Self.at(hhmm), in: Self.utc)
            return (limits.bandwidth, changed)
        }
        #expect(follow("07:00") == (2_000_000, true))
        #expect(follow("07:01") == (2_000_000, false), "unchanged: no new shares to send")
        #expect(follow("01:00") == (nil, true))
        limits.explicitBandwidth = 500_000
        #expect(follow("01:00") == (500_000, true))
        #expect(follow("07:00") == (500_000, false), "the explicit cap holds")
        limits.explicitBandwidth = 0
        #expect(follow("07:00") == (nil, true), "an explicit 0 is no cap, whatever the schedule")
        limits.explicitBandwidth = nil
        #expect(follow("07:00") == (2_000_000, true))
    }
}
