import Foundation

/// The fill windows of the box (`--fill-window`) or of one title (`submit --window`, a catalogue's `window`):
/// one or more ``FillWindow``s, comma-separated (`01:00-06:00,13:00-14:00`); open when any of them is open.
public struct FillSchedule: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The windows, as given.
    public let windows: [FillWindow]

    /// At least one window.
    public init(_ windows: [FillWindow]) throws(ScheduleSpecError) {
        guard !windows.isEmpty else {
            throw ScheduleSpecError(.malformedWindow, "", "give at least one window HH:MM-HH:MM")
        }
        self.windows = windows
    }

    /// Reads `HH:MM-HH:MM[,HH:MM-HH:MM...]`.
    public init(parsing text: String) throws(ScheduleSpecError) {
        var windows: [FillWindow] = []
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        for part in parts {
            do { windows.append(try FillWindow(parsing: String(part))) } catch {
                throw ScheduleSpecError(error.code, text, (parts.count > 1 ? "'\(part)': " : "") + error.reason)
            }
        }
        try self.init(windows)
    }

    /// Several specs (a repeated option), each possibly comma-separated, as one schedule.
    public init(parsing texts: [String]) throws(ScheduleSpecError) {
        var windows: [FillWindow] = []
        for text in texts { windows += try FillSchedule(parsing: text).windows }
        try self.init(windows)
    }

    /// The canonical text (`01:00-06:00,22:00-23:30`): what the store keeps and `status` could show.
    public var description: String { windows.map(\.description).joined(separator: ",") }

    /// Whether any window is open at `date` by the wall clock of `zone`.
    public func isOpen(at date: Date, in zone: TimeZone) -> Bool {
        windows.contains { $0.isOpen(at: date, in: zone) }
    }

    /// When the schedule next opens after `date` (nil: it never closes). Meant for a closed schedule (that is
    /// `status`'s `nextWindowAt`); from an open one it is the next opening of a window that is closed now.
    public func nextOpening(after date: Date, in zone: TimeZone) -> Date? {
        windows.compactMap { $0.nextOpening(after: date, in: zone) }.min()
    }

    /// When an open schedule next closes after `date`: windows that overlap or touch count as one (nil: never).
    /// From a closed schedule it is the closing of the next opening.
    public func nextClosing(after date: Date, in zone: TimeZone) -> Date? {
        var at = date
        if !isOpen(at: at, in: zone) {
            guard let opening = nextOpening(after: at, in: zone) else { return nil }
            at = opening
        }
        for _ in 0..<(2 * windows.count + 2) {
            let closings = windows.filter { $0.isOpen(at: at, in: zone) }.compactMap {
                $0.nextClosing(after: at, in: zone)
            }
            guard let latest = closings.max() else { return nil }
            if !isOpen(at: latest, in: zone) { return latest }
            at = latest
        }
        return nil  // windows chained all around the clock: never closed
    }
}
