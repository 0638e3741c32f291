import Foundation

/// A length of time as operators write it: a number and a unit, `s`, `m`, `h` or `d` (`90s`, `15m`, `1.5h`, `30d`).
///
/// A bare number is refused (is `3` three seconds or three days?) unless the option's documentation has always said
/// seconds (`--auto-renew-before`, `--scrub-interval`, the gateway's timeouts, `--sign-urls`): those parse with
/// `bareSeconds: true`. Units are lowercase; `15M` is refused rather than read as minutes or months. At most 100
/// years (``OutsideNumbers/maxSeconds``): a longer sleep traps in `Duration`, and nothing needs more.
public struct TimeSpan: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// What every duration accepts, for error messages and help.
    public static let accepted = "a number with a unit: s, m, h or d (e.g. 90s, 15m, 24h, 30d)"

    public let seconds: Double

    public init(seconds: Double) { self.seconds = seconds }

    /// Parses a duration; `bareSeconds` lets a plain number mean seconds.
    public init(parsing raw: String, bareSeconds: Bool = false) throws(UnitError) {
        let text = raw.trimmingCharacters(in: .whitespaces)
        let accepted = bareSeconds ? Self.accepted + ", or plain seconds" : Self.accepted
        guard !text.isEmpty else { throw UnitError(.empty, raw, "is empty: a duration is \(accepted)") }
        guard !text.hasPrefix("-") else {
            throw UnitError(.negative, raw, "is negative: a duration is \(accepted)")
        }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        var number = Substring(text)
        var factor = 1.0
        if let last = text.last, let unit = units[last] {
            number = number.dropLast()
            factor = unit
        } else if text.last?.isLetter == true {
            throw UnitError(.malformed, raw, "has a unit Stowage does not know: a duration is \(accepted)")
        } else if !bareSeconds {
            throw UnitError(.missingUnit, raw, "needs a unit: a duration is \(accepted)")
        }
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard !number.isEmpty, parts.count <= 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
            number.allSatisfy({ $0.isNumber || $0 == "." }), let value = Double(number)
        else {
            throw UnitError(.malformed, raw, "is not a duration: a duration is \(accepted)")
        }
        guard value * factor <= OutsideNumbers.maxSeconds else {
            throw UnitError(.tooLarge, raw, "is more than 100 years, the longest duration Stowage takes")
        }
        seconds = value * factor
    }

    /// The largest unit that states it exactly: `90s`, `15m`, `24h`, `30d` (`1.5s` for fractions of a second).
    public var description: String {
        for (unit, size) in [("d", 86_400.0), ("h", 3_600.0), ("m", 60.0)]
        where seconds >= size && seconds.truncatingRemainder(dividingBy: size) == 0 {
            return "\(Int64(seconds / size))\(unit)"
        }
        return seconds == seconds.rounded() ? "\(Int64(seconds))s" : "\(seconds)s"
    }

    public static func < (a: TimeSpan, b: TimeSpan) -> Bool { a.seconds < b.seconds }
}
