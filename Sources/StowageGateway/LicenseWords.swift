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

    /// A moment relative to `now` in words (``BoxTime``).
    public static func moment(_ date: Date, now: Date, timeZone: TimeZone) -> String {
        BoxTime.moment(date, now: now, timeZone: timeZone)
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
    public static func date(_ text: String) -> Date? { BoxTime.date(text) }
}
