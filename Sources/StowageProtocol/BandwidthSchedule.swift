import Foundation

/// The global download rate cap by time of day (`stowage-scheduler --bandwidth-schedule`):
/// `01:00-06:00=unlimited,*=2M` lifts the cap at night and holds it at 2 MiB/s (2,097,152 bytes/s) otherwise.
///
/// Entries are `WINDOW=RATE` (a ``FillWindow``) or `*=RATE` (any other time), comma-separated; the first window
/// that is open decides, `*` otherwise, and without `*` other times are unlimited. A rate is bytes per second
/// (like `--bandwidth`) as a ``ByteRate`` reads it (binary K, M, G, T: 1K = 1024), or `unlimited` (also `0`).
/// Pure; the scheduler reads it against its wall clock every second.
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

    /// `unlimited`, `0`, or a ``ByteRate`` (binary K, M, G, T, as every rate and size Stowage reads).
    static func rate(_ raw: String, in text: String) throws(ScheduleSpecError) -> Int64? {
        let value = raw.trimmingCharacters(in: .whitespaces)
        if value.lowercased() == "unlimited" { return nil }
        do {
            let rate = try ByteRate(parsing: value).bytesPerSecond
            return rate == 0 ? nil : rate
        } catch {
            throw ScheduleSpecError(.malformedRate, text, "\(error.description) (2M = 2097152 bytes/s), or unlimited")
        }
    }
}
