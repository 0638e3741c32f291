import Foundation
import StowageProtocol

/// Fill windows: when each title may fetch. The box's windows (`--fill-window`), a title's own (`submit --window`,
/// which replace the box's for it) and `--now` (none apply), read against the wall clock in the box's time zone.
///
/// Pure: the scheduler asks, every second and whenever a title would start fetching, what a title's windows say
/// at the wall-clock time it read (a clock step moves the windows at the next check; timers stay monotonic).
/// Recordings and `--now` titles are never held; only titles that fetch (`requested`, `licensing`,
/// `downloading`) are held, and only a title waiting for its window (`suspended`, `window`) is released, so a
/// title the operator paused stays paused when its window opens.
public struct FillWindows: Sendable {
    /// What a title's windows call for now.
    public enum Verdict: Sendable, Equatable {
        /// Its window is closed: it waits (suspended, `window`) until `nextOpening` (nil: unknown).
        case hold(nextOpening: Date?)
        /// It waits for its window and the window is open: it carries on.
        case release
        /// Nothing changes.
        case keep
    }

    /// The box's windows (`--fill-window`); nil: the box fetches at any time.
    public var box: FillSchedule?
    /// The box's time zone: windows are local times in it.
    public var timeZone: TimeZone

    public init(box: FillSchedule? = nil, timeZone: TimeZone = .current) {
        self.box = box
        self.timeZone = timeZone
    }

    /// The windows that apply to a title: its own (`window`, a ``FillSchedule``'s text), else the box's; none
    /// for `now` titles and recordings. An unreadable stored text counts as none (submit refuses such text).
    public func schedule(window: String?, now: Bool = false, recording: Bool = false) -> FillSchedule? {
        guard !now, !recording else { return nil }
        guard let window else { return box }
        return try? FillSchedule(parsing: window)  // a few microseconds: read at each check
    }

    /// Whether a title with these windows may not fetch at `date`.
    public func holds(window: String?, now: Bool, recording: Bool, at date: Date) -> Bool {
        guard let schedule = schedule(window: window, now: now, recording: recording) else { return false }
        return !schedule.isOpen(at: date, in: timeZone)
    }

    /// When a title's windows next open after `date` (nil: no window applies, or it never closes).
    public func nextOpening(window: String?, after date: Date) -> Date? {
        schedule(window: window)?.nextOpening(after: date, in: timeZone)
    }

    /// What a title (neither `--now` nor a recording) in `state`, suspended for `reason`, with its own `window`
    /// (nil: the box's) should do at `date`.
    public func verdict(
        state: TitleState, reason: SuspendedReason?, window: String?, at date: Date
    ) -> Verdict {
        guard let schedule = schedule(window: window) else {
            return state == .suspended && reason == .window ? .release : .keep  // its window was lifted
        }
        let open = schedule.isOpen(at: date, in: timeZone)
        switch state {
        case .requested, .licensing, .downloading:
            return open ? .keep : .hold(nextOpening: schedule.nextOpening(after: date, in: timeZone))
        case .suspended where reason == .window && open:
            return .release
        default:
            return .keep
        }
    }
}
