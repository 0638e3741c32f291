import Foundation

/// `xs:dateTime` as live MPDs write it (`MPD@availabilityStartTime`, `@publishTime`, a `UTCTiming` answer):
/// `2026-11-27T18:00:00Z`, with optional fractional seconds and a `Z` or `±hh:mm` zone; a time without a zone is
/// UTC, as the DASH-IF guidelines require. Parsed by hand: the result must not depend on the box's locale or zone.
public enum XSDateTime {
    /// Seconds since 1970-01-01T00:00:00Z, or nil when `text` is not such a date-time (or not between the years
    /// 1970 and 9999).
    public static func seconds(_ text: String) -> Double? {
        let s = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard s.count >= 19, s.count <= 40, s[4] == UInt8(ascii: "-"), s[7] == UInt8(ascii: "-"),
            s[10] == UInt8(ascii: "T"), s[13] == UInt8(ascii: ":"), s[16] == UInt8(ascii: ":"),
            let year = digits(s, 0, 4), let month = digits(s, 5, 2), let day = digits(s, 8, 2),
            let hour = digits(s, 11, 2), let minute = digits(s, 14, 2), let second = digits(s, 17, 2),
            (1970...9999).contains(year), (1...12).contains(month), (1...daysIn(month, year)).contains(day),
            hour <= 23 || (hour == 24 && minute == 0 && second == 0), minute <= 59, second <= 59
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < s.count, s[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let first = index
            while index < s.count, let d = digit(s[index]) {
                fraction += Double(d) * scale
                scale /= 10
                index += 1
            }
            guard index > first else { return nil }
        }
        var zone = 0
        if index < s.count {
            if s[index] == UInt8(ascii: "Z"), index == s.count - 1 {
                index += 1
            } else if s[index] == UInt8(ascii: "+") || s[index] == UInt8(ascii: "-"), s.count - index == 6,
                s[index + 3] == UInt8(ascii: ":"), let h = digits(s, index + 1, 2), let m = digits(s, index + 4, 2),
                h <= 14, m <= 59
            {
                zone = (s[index] == UInt8(ascii: "+") ? 1 : -1) * (h * 3_600 + m * 60)
                index = s.count
            } else {
                return nil
            }
        }
        let days = daysFromCivil(year, month, day)
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second - zone) + fraction
    }

    /// The form `MPD@publishTime` takes: `2026-11-27T18:00:00Z` (whole seconds) or with milliseconds.
    public static func format(_ seconds: Double) -> String {
        let whole = Int64(seconds.rounded(.down))
        let millis = Int((seconds - Double(whole)) * 1_000)
        var days = whole / 86_400
        var rest = whole % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let (y, m, d) = civil(fromDays: days)
        let time = "\(pad(Int(rest / 3_600), 2)):\(pad(Int(rest % 3_600 / 60), 2)):\(pad(Int(rest % 60), 2))"
        let date = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
        return millis == 0 ? "\(date)T\(time)Z" : "\(date)T\(time).\(pad(millis, 3))Z"
    }

    /// `value` in decimal with leading zeros up to `width` digits.
    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    static func digits(_ s: [UInt8], _ from: Int, _ count: Int) -> Int? {
        guard from + count <= s.count else { return nil }
        var value = 0
        for i in from..<(from + count) {
            guard let d = digit(s[i]) else { return nil }
            value = value * 10 + d
        }
        return value
    }

    static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date of a day count since 1970-01-01 (Hinnant's `civil_from_days`).
    static func civil(fromDays days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(yoe + era * 400 + (m <= 2 ? 1 : 0)), Int(m), Int(d))
    }
}
