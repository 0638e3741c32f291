import Foundation
import StowageProtocol

/// A title's license as a viewer reads it, in the box's time zone: "available until Tue 18:00", "2 plays left",
/// "no limit" — never raw UTC timestamps, and never "License: none" (which reads as "not allowed"). Pure: the
/// time zone and the present are passed in, so the same words come out for the same moment anywhere.
public enum LicenseWords {
    /// The words for `license` at `now`, dates as seen in `timeZone`.
    public static func text(_ license: LicenseStatus?, now: Date, timeZone: TimeZone) -> String {
        guard let license else { return "no limit" }
        if license.expired { return "expired" }
        var parts: [String] = []
        if let text = license.expiresAt, let date = date(text) {
            parts.append(date <= now ? "expired" : "available until " + moment(date, now: now, timeZone: timeZone))
        }
        if let plays = license.playsRemaining {
            parts.append(plays <= 0 ? "no plays left" : plays == 1 ? "1 play left" : "\(plays) plays left")
        }
        if let seconds = license.playTimeRemainingSeconds {
            parts.append(duration(seconds) + " of viewing left")
        }
        if let seconds = license.playDurationSeconds {
            parts.append("watch within " + duration(seconds) + " of starting")
        }
        return parts.isEmpty ? "no limit" : parts.joined(separator: " · ")
    }

    /// A moment relative to `now`: "today 18:00", "tomorrow 09:30", "Tue 18:00" within the week, "12 Dec 18:00"
    /// within the year, "12 Dec 2027" beyond.
    public static func moment(_ date: Date, now: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let days =
            calendar.dateComponents([.day], from: calendar.startOfDay(for: now), to: calendar.startOfDay(for: date))
            .day ?? 0
        let time = format(date, "HH:mm", timeZone)
        switch days {
        case 0: return "today " + time
        case 1: return "tomorrow " + time
        case 2...6: return format(date, "EEE", timeZone) + " " + time
        default:
            let sameYear = calendar.component(.year, from: date) == calendar.component(.year, from: now)
            return sameYear ? format(date, "d MMM", timeZone) + " " + time : format(date, "d MMM yyyy", timeZone)
        }
    }

    /// Seconds in words: "45 s", "20 min", "1 h 20 min", "3 days".
    public static func duration(_ seconds: Double) -> String {
        let total = Int(min(max(seconds, 0), 1e12).rounded())
        if total < 60 { return "\(total) s" }
        if total < 3600 { return "\(total / 60) min" }
        if total < 2 * 86400 {
            let minutes = (total % 3600) / 60
            return "\(total / 3600) h" + (minutes > 0 ? " \(minutes) min" : "")
        }
        return "\(total / 86400) days"
    }

    /// An ISO 8601 timestamp of the status (with or without fractional seconds).
    public static func date(_ text: String) -> Date? {
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
