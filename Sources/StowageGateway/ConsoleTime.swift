import Foundation

/// The console's times in the box's time zone, in words (`Fri 27 Nov 21:40`), from the scheduler's ISO 8601.
enum ConsoleTime {
    /// `iso` in words; the text as it is when it is not ISO 8601.
    static func words(_ iso: String) -> String {
        guard let date = ISO8601DateFormatter().date(from: iso) else { return iso }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_GB")
        format.timeZone = .current
        format.dateFormat = "EEE d MMM HH:mm"
        return format.string(from: date)
    }
}
