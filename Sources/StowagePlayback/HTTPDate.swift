import Foundation
import Synchronization

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) for `Last-Modified` and `If-Range`.
public enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Dates formatted lately, by second: every file answer carries its `Last-Modified`, and a title's files share
    /// a few.
    private static let recent = Mutex<[Int: String]>([:])

    /// The date in GMT, to the second.
    public static func format(_ date: Date) -> String {
        let second = Int(date.timeIntervalSince1970.rounded(.down))
        if let known = recent.withLock({ $0[second] }) { return known }
        let text = format(second: second)
        recent.withLock { recent in
            if recent.count >= 1024 { recent.removeAll(keepingCapacity: true) }
            recent[second] = text
        }
        return text
    }

    private static func format(second: Int) -> String {
        var time = time_t(second)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
            + "\(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
