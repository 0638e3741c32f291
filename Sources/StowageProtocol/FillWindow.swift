import Foundation

/// One fill window, `HH:MM-HH:MM` in the box's local time (`01:00-06:00`; `22:00-06:00` crosses midnight;
/// `24:00` may end one): when titles may be fetched (`stowage-scheduler --fill-window`, `submit --window`).
///
/// Pure: whether it is open is read from the wall-clock time of day in a given time zone, so the window follows
/// the clock the operator reads (a clock step moves it; on a daylight-saving change it opens and closes at the
/// local times written, an hour of local time skipped or lived twice as the clock does).
public struct FillWindow: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Minutes after local midnight when it opens (0..<1440).
    public let start: Int
    /// Minutes after local midnight when it closes (1...1440; at or before `start`: the next day).
    public let end: Int

    /// `start` and `end` in minutes after local midnight; they must differ.
    public init(start: Int, end: Int) throws(ScheduleSpecError) {
        let allDay = start == 0 && end == 1440
        guard (0..<1440).contains(start), (1...1440).contains(end), allDay || start != end % 1440 else {
            throw ScheduleSpecError(
                .malformedWindow, Self.text(start, end), "a window opens and closes at two different times of day")
        }
        self.start = start
        self.end = end
    }

    /// Reads `HH:MM-HH:MM` (hours 0-23, `24:00` only as the end).
    public init(parsing text: String) throws(ScheduleSpecError) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let from = Self.minutes(parts[0], mayBe24: false),
            let to = Self.minutes(parts[1], mayBe24: true)
        else {
            throw ScheduleSpecError(
                .malformedWindow, text, "a window is HH:MM-HH:MM in local time, e.g. 01:00-06:00 or 22:00-06:00")
        }
        do { try self.init(start: from, end: to) } catch { throw ScheduleSpecError(error.code, text, error.reason) }
    }

    /// Whether it crosses local midnight (e.g. 22:00-06:00).
    public var crossesMidnight: Bool { end <= start }

    /// Whether the window is open at `date`, by the wall clock of `zone`.
    public func isOpen(at date: Date, in zone: TimeZone) -> Bool {
        let minute = Self.minuteOfDay(date, in: zone)
        let (from, to) = (Double(start), Double(end))
        return crossesMidnight ? minute >= from || minute < to : (from..<to).contains(minute)
    }

    /// The first moment after `date` at which the window opens (closed just before, open from then on), or nil for
    /// a window that never closes.
    public func nextOpening(after date: Date, in zone: TimeZone) -> Date? {
        nextEdge(after: date, in: zone, minute: start, opening: true)
    }

    /// The first moment after `date` at which the window closes, or nil for a window that never closes.
    public func nextClosing(after date: Date, in zone: TimeZone) -> Date? {
        nextEdge(after: date, in: zone, minute: end % 1440, opening: false)
    }

    /// Always open (00:00-24:00): it has no edges.
    public var isAlwaysOpen: Bool { start == 0 && end == 1440 }

    public var description: String { Self.text(start, end) }

    /// The next local time of day `minute` after `date` at which the window really turns open (or closed):
    /// a time a daylight-saving change skips is met at the first time after it, and a turn that does not
    /// happen (the whole window inside a skipped hour) is passed over.
    private func nextEdge(after date: Date, in zone: TimeZone, minute: Int, opening: Bool) -> Date? {
        guard !isAlwaysOpen else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var from = date
        for _ in 0..<8 {
            guard
                let candidate = calendar.nextDate(
                    after: from, matching: DateComponents(hour: minute / 60, minute: minute % 60, second: 0),
                    matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward)
            else { return nil }
            if isOpen(at: candidate, in: zone) == opening, isOpen(at: candidate - 1, in: zone) != opening {
                return candidate
            }
            from = candidate
        }
        return nil
    }

    /// Minutes (with seconds as a fraction) since local midnight of `date` in `zone`.
    static func minuteOfDay(_ date: Date, in zone: TimeZone) -> Double {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents([.hour, .minute, .second, .nanosecond], from: date)
        return Double((c.hour ?? 0) * 60 + (c.minute ?? 0)) + (Double(c.second ?? 0) + Double(c.nanosecond ?? 0) / 1e9)
            / 60
    }

    private static func minutes(_ text: Substring, mayBe24: Bool) -> Int? {
        let fields = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2, (1...2).contains(fields[0].count), fields[1].count == 2,
            fields.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let hours = Int(fields[0]), let minutes = Int(fields[1]), minutes < 60
        else { return nil }
        if hours == 24 && minutes == 0 && mayBe24 { return 1440 }
        return hours < 24 ? hours * 60 + minutes : nil
    }

    private static func text(_ start: Int, _ end: Int) -> String {
        func hhmm(_ m: Int) -> String {
            let h = m / 60
            let mm = m % 60
            return (h < 10 ? "0" : "") + "\(h):" + (mm < 10 ? "0" : "") + "\(mm)"
        }
        return "\(hhmm(start))-\(hhmm(end))"
    }
}
