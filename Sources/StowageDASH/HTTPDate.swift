import Foundation

/// The HTTP `Date` header (RFC 9110 IMF-fixdate, `Fri, 27 Nov 2026 18:00:00 GMT`): the origin's clock when a live
/// MPD names no `UTCTiming`, and the answer of `urn:mpeg:dash:utc:http-head:2014`. The obsolete RFC 850 and asctime
/// forms are not accepted (no origin of the last twenty years sends them).
public enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Seconds since 1970, or nil when `text` is not an IMF-fixdate.
    public static func seconds(_ text: String) -> Double? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
            parts[1].count == 2, let day = Int(parts[1]), let month = months.firstIndex(of: String(parts[2])),
            parts[3].count == 4, let year = Int(parts[3])
        else { return nil }
        guard parts[4].count == 8 else { return nil }
        let date = "\(XSDateTime.pad(year, 4))-\(XSDateTime.pad(month + 1, 2))-\(XSDateTime.pad(day, 2))"
        return XSDateTime.seconds("\(date)T\(parts[4])Z")
    }
}
