import Foundation

/// Times as the people at the box read them, in its time zone (`TZ`), relative to now: "today 14:05", "yesterday
/// 09:12", "tomorrow 09:30", "Tue 18:00" within a week either way, "12 Dec 18:00" within the year, "12 Dec 2027"
/// beyond — never raw UTC. One rule for the library, the console and the Devices page. Pure: `now` and the time zone
/// are passed in (by default the present and the box's zone).
enum BoxTime {
    /// `iso` (the scheduler's ISO 8601) in words; the text as it is when it is not ISO 8601.
    static func words(_ iso: String, now: Date = Date(), timeZone: TimeZone = .current) -> String {
        guard let date = date(iso) else { return iso }
        return moment(date, now: now, timeZone: timeZone)
    }

    /// `date` in words, relative to `now`.
    static func moment(_ date: Date, now: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let days =
            calendar.dateComponents([.day], from: calendar.startOfDay(for: now), to: calendar.startOfDay(for: date))
            .day ?? 0
        let time = format(date, "HH:mm", timeZone)
        switch days {
        case 0: return "today " + time
        case 1: return "tomorrow " + time
        case -1: return "yesterday " + time
        case -6...6: return format(date, "EEE", timeZone) + " " + time
        default:
            let sameYear = calendar.component(.year, from: date) == calendar.component(.year, from: now)
            return sameYear ? format(date, "d MMM", timeZone) + " " + time : format(date, "d MMM yyyy", timeZone)
        }
    }

    /// An ISO 8601 timestamp of the scheduler (with or without fractional seconds).
    static func date(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }

    private static func format(_ date: Date, _ pattern: String, _ timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }
}
