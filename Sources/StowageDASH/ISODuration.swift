import Foundation

/// ISO 8601 / `xs:duration` values as MPDs use them (`PT1H2M3.5S`, `P1DT2H`, `P0Y0M0DT0H3M30.000S`).
public enum ISODuration {
    /// Seconds in `text`, or nil when it is not a duration. Calendar years and months are accepted only when
    /// zero (their length in seconds is not fixed); negative durations are refused.
    public static func seconds(_ text: String) -> Double? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard rest.first == "P" else { return nil }
        rest.removeFirst()
        var total = 0.0
        var inTime = false
        var sawComponent = false
        var lastRank = 0
        while !rest.isEmpty {
            if rest.first == "T" {
                guard !inTime else { return nil }
                inTime = true
                rest.removeFirst()
                guard !rest.isEmpty else { return nil }
                continue
            }
            let numberEnd = rest.firstIndex(where: { !($0.isASCII && ($0.isNumber || $0 == ".")) }) ?? rest.endIndex
            let digits = rest[..<numberEnd]
            guard !digits.isEmpty, numberEnd < rest.endIndex, let value = Double(digits), value.isFinite else {
                return nil
            }
            let unit = rest[numberEnd]
            rest = rest[rest.index(after: numberEnd)...]
            let rank: Int
            let factor: Double
            switch (inTime, unit) {
            case (false, "Y"): (rank, factor) = (1, 0)
            case (false, "M"): (rank, factor) = (2, 0)
            case (false, "W"): (rank, factor) = (3, 604_800)
            case (false, "D"): (rank, factor) = (4, 86_400)
            case (true, "H"): (rank, factor) = (5, 3_600)
            case (true, "M"): (rank, factor) = (6, 60)
            case (true, "S"): (rank, factor) = (7, 1)
            default: return nil
            }
            // Components in order, each at most once; fractions only on seconds; years/months only as zero.
            guard rank > lastRank, rank == 7 || !digits.contains("."), factor != 0 || value == 0 else { return nil }
            lastRank = rank
            sawComponent = true
            total += value * factor
        }
        guard sawComponent, total.isFinite else { return nil }
        return total
    }

    /// `PT…H…M…S` text for `seconds` (milliseconds kept), e.g. `PT1H2M3.500S`; negative values are written as 0.
    public static func format(_ seconds: Double) -> String {
        let millis = seconds.isFinite && seconds > 0 ? Int64((min(seconds, 9e12) * 1000).rounded()) : 0
        let hours = millis / 3_600_000
        let minutes = (millis / 60_000) % 60
        let wholeSeconds = (millis / 1000) % 60
        let fraction = millis % 1000
        var text = "PT"
        if hours > 0 { text += "\(hours)H" }
        if hours > 0 || minutes > 0 { text += "\(minutes)M" }
        text += "\(wholeSeconds)." + String(repeating: "0", count: 3 - String(fraction).count) + "\(fraction)S"
        return text
    }
}
