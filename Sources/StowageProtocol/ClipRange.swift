import Foundation

/// `submit --range START-END`: the part of a VOD title to keep, in seconds of media time from its start. Written
/// `00:10:00-00:25:00`, `10:00-25:00` or `600-1500` (each end `[[H:]M:]S`, seconds may have a fraction). The
/// planners keep every segment that overlaps it, in every rendition, so what is stored starts and ends on
/// segment boundaries (``TitleStatus/range`` says where).
public struct ClipRange: Codable, Sendable, Hashable, CustomStringConvertible {
    /// Seconds from the start of the title.
    public var from: Double
    public var to: Double

    public init(from: Double, to: Double) {
        self.from = from
        self.to = to
    }

    /// What `--range` accepts, for error messages and help.
    public static let accepted = "START-END, each as seconds, M:SS or H:MM:SS (e.g. 600-1500 or 00:10:00-00:25:00)"

    /// Parses `START-END`, or throws a ``ClipRangeError`` naming what is wrong.
    public init(parsing raw: String) throws(ClipRangeError) {
        let text = raw.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw ClipRangeError(.malformed, raw, "is empty: --range takes \(Self.accepted)") }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw ClipRangeError(.malformed, raw, "is not START-END: --range takes \(Self.accepted)")
        }
        let from = try Self.seconds(parts[0], raw: raw, end: "start")
        let to = try Self.seconds(parts[1], raw: raw, end: "end")
        guard to > from else {
            throw ClipRangeError(.empty, raw, "is empty: its end must come after its start")
        }
        self.init(from: from, to: to)
    }

    /// `[[H:]M:]S` in seconds; minutes and seconds after a colon are below 60.
    static func seconds(_ part: Substring, raw: String, end: String) throws(ClipRangeError) -> Double {
        let fields = part.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        func bad(_ why: String) -> ClipRangeError { ClipRangeError(.malformed, raw, "has a \(end) that \(why)") }
        guard (1...3).contains(fields.count) else { throw bad("is not [[H:]M:]S") }
        var total = 0.0
        for (i, field) in fields.enumerated() {
            let last = i == fields.count - 1
            let allowed = field.allSatisfy { $0.isASCII && ($0.isNumber || (last && $0 == ".")) }
            guard !field.isEmpty, allowed, field.first != ".", let value = Double(field), value.isFinite else {
                throw bad("'\(field.prefix(20))' is not a number of \(last ? "seconds" : "hours or minutes")")
            }
            if i > 0 && value >= 60 {
                throw bad("has '\(field.prefix(20))' after a colon: minutes and seconds are below 60")
            }
            total = total * 60 + value
        }
        guard total <= OutsideNumbers.maxSeconds else { throw bad("is more than 100 years") }
        return total
    }

    /// Both ends to the millisecond: what is stored and reported, so segment durations summed in floating point
    /// (`2.000000` twenty times) give the boundaries a person reads in the playlist.
    public var millisecondRounded: ClipRange {
        ClipRange(from: (from * 1000).rounded() / 1000, to: (to * 1000).rounded() / 1000)
    }

    /// Seconds from `from` to `to`.
    public var length: Double { to - from }

    /// `600-1500` (seconds, as stored).
    public var description: String { "\(Self.format(from))-\(Self.format(to))" }

    static func format(_ s: Double) -> String { s == s.rounded() ? String(Int64(s)) : String(s) }
}

/// Why a `--range` was refused: a code for tests and callers, and a message a person can act on.
public struct ClipRangeError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable {
        /// Not `START-END` with two times.
        case malformed
        /// The end is not after the start.
        case empty
    }
    public let code: Code
    public let text: String
    public let reason: String

    public init(_ code: Code, _ text: String, _ reason: String) {
        self.code = code
        self.text = text
        self.reason = reason
    }

    public var description: String { "--range '\(text.prefix(80))' \(reason)" }
}
