import Foundation

/// Times in the box's time zone, in words: "today 14:05", "yesterday 09:12", "Tue 24 Nov 18:00".
enum BoxTime {
    static func words(_ iso: String, now: Date = Date(), timeZone: TimeZone = .current) -> String {
        guard let date = ISO8601DateFormatter().date(from: iso) else { return iso }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.timeZone = timeZone
        formatter.dateFormat = "HH:mm"
        let time = formatter.string(from: date)
        if calendar.isDate(date, inSameDayAs: now) { return "today \(time)" }
        if let yesterday = calendar.date(byAdding: .day, value: -1, to: now),
            calendar.isDate(date, inSameDayAs: yesterday)
        {
            return "yesterday \(time)"
        }
        formatter.dateFormat =
            calendar.isDate(date, equalTo: now, toGranularity: .year) ? "EEE d MMM HH:mm" : "d MMM yyyy HH:mm"
        return formatter.string(from: date)
    }
}
