import Foundation

/// The global download rate cap by time of day (`stowage-scheduler --bandwidth-schedule`):
/// `01:00-06:00=unlimited,*=2M` lifts the cap at night and holds it at 2,000,000 bytes/s otherwise.
///
/// Entries are `WINDOW=RATE` (a ``FillWindow``) or `*=RATE` (any other time), comma-separated; the first window
/// that is open decides, `*` otherwise, and without `*` other times are unlimited. A rate is bytes per second
/// (like `--bandwidth`), with an optional decimal suffix K (×1,000), M (×1,000,000) or G (×1,000,000,000),
/// or `unlimited` (also `0`). Pure; the scheduler reads it against its wall clock every second.
public struct BandwidthSchedule: Sendable, Equatable, CustomStringConvertible {
    /// One entry: a window and its rate (nil: unlimited).
    public struct Entry: Sendable, Equatable {
        public let window: FillWindow
        public let bytesPerSecond: Int64?
    }

    /// The windows in the order given.
    public let entries: [Entry]
    /// The rate outside every window (`*`; nil: unlimited).
    public let otherwise: Int64?

    /// Reads `WINDOW=RATE[,WINDOW=RATE...][,*=RATE]`.
    public init(parsing text: String) throws(ScheduleSpecError) {
        var entries: [Entry] = []
        var otherwise: Int64?
        var sawDefault = false
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let sides = part.split(separator: "=", omittingEmptySubsequences: false)
            guard sides.count == 2 else {
                throw ScheduleSpecError(
                    .malformedEntry, text,
                    "'\(part)' is not WINDOW=RATE or *=RATE (e.g. 01:00-06:00=unlimited,*=2M)")
            }
            let rate = try Self.rate(String(sides[1]), in: text)
            if sides[0].trimmingCharacters(in: .whitespaces) == "*" {
                guard !sawDefault else {
                    throw ScheduleSpecError(.malformedEntry, text, "'*' (any other time) is given twice")
                }
                sawDefault = true
                otherwise = rate
                continue
            }
            do {
                entries.append(Entry(window: try FillWindow(parsing: String(sides[0])), bytesPerSecond: rate))
            } catch { throw ScheduleSpecError(error.code, text, "'\(sides[0])': \(error.reason)") }
        }
        self.entries = entries
        self.otherwise = otherwise
    }

    /// The cap at `date` by the wall clock of `zone`, bytes per second (nil: unlimited).
    public func bytesPerSecond(at date: Date, in zone: TimeZone) -> Int64? {
        entries.first { $0.window.isOpen(at: date, in: zone) }.map(\.bytesPerSecond) ?? otherwise
    }

    public var description: String {
        func rate(_ r: Int64?) -> String { r.map(String.init) ?? "unlimited" }
        return (entries.map { "\($0.window)=\(rate($0.bytesPerSecond))" } + ["*=\(rate(otherwise))"])
            .joined(separator: ",")
    }

    /// `unlimited`, `0`, or a whole number of bytes per second with an optional K, M or G (decimal).
    static func rate(_ raw: String, in text: String) throws(ScheduleSpecError) -> Int64? {
        let value = raw.trimmingCharacters(in: .whitespaces)
        if value.lowercased() == "unlimited" { return nil }
        let factors: [Character: Int64] = ["K": 1_000, "M": 1_000_000, "G": 1_000_000_000]
        var digits = Substring(value)
        var factor: Int64 = 1
        if let last = value.last?.uppercased().first, let f = factors[last] {
            factor = f
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int64(digits),
            n <= Int64.max / factor
        else {
            throw ScheduleSpecError(
                .malformedRate, text,
                "'\(raw)' is not a rate: bytes per second with an optional K, M or G (2M = 2000000 bytes/s), "
                    + "or unlimited")
        }
        return n == 0 ? nil : n * factor
    }
}
