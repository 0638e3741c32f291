/// A number read from outside the box — a playlist, an MPD, a peer's manifest, a bundle, a catalogue, a license
/// answer, a ZeroMQ frame — checked where it is parsed against the range its kind of field may take.
///
/// Why a type and not checks at each use: one attribute out of range (`BANDWIDTH=9000000000000000000`) used to pass
/// the parser and trap a process far away (an estimate, a disk ledger), and again after every restart. Each range
/// here is far below its type's limits, so the arithmetic a box does on such numbers (an estimate from a bit rate
/// and a duration, the bytes of a few hundred thousand files) cannot overflow once they are checked; sums of many
/// still saturate (``OutsideNumber/sum(_:)``). A value outside its range is a ``NumberRangeError`` naming the field.
public struct OutsideNumber<Value: Comparable & Sendable & CustomStringConvertible>: Sendable {
    /// What the field is called where the input names it (`BANDWIDTH`, `files[].size`, `bytesEstimate`).
    public var field: String
    /// The values the field may take.
    public var range: ClosedRange<Value>
    /// The unit the range is in, for the error's message (`bytes`, `bit/s`, `s`).
    public var unit: String

    public init(_ field: String, _ range: ClosedRange<Value>, unit: String = "") {
        self.field = field
        self.range = range
        self.unit = unit
    }

    /// `value`, or the error naming the field when it lies outside the range.
    public func check(_ value: Value) throws(NumberRangeError) -> Value {
        guard range.contains(value) else { throw error(value.description) }
        return value
    }

    /// `value` when present (nil stays nil), checked as ``check(_:)``.
    public func checkIfPresent(_ value: Value?) throws(NumberRangeError) -> Value? {
        guard let value else { return nil }
        return try check(value)
    }

    /// The error for a value (given as read) this field may not take.
    public func error(_ text: String) -> NumberRangeError {
        NumberRangeError(
            field: field, value: String(text.prefix(40)),
            allowed: "\(range.lowerBound)…\(range.upperBound)\(unit.isEmpty ? "" : " \(unit)")")
    }
}

extension OutsideNumber where Value: FixedWidthInteger & LosslessStringConvertible {
    /// Parses decimal digits (an optional sign, no spaces) into the range; anything else, a value past the type's
    /// limits included, is the field's error.
    public func parse(_ text: some StringProtocol) throws(NumberRangeError) -> Value {
        guard let value = Value(String(text)) else { throw error(String(text)) }
        return try check(value)
    }
}

extension OutsideNumber where Value == Double {
    /// Parses a decimal number into the range; `nan`, `inf` and anything unparsable are the field's error.
    public func parse(_ text: some StringProtocol) throws(NumberRangeError) -> Double {
        guard let value = Double(String(text)), value.isFinite else { throw error(String(text)) }
        return try check(value)
    }
}

/// A number from outside the box that its field may not take: which field, what it said, and what it may say.
public struct NumberRangeError: Error, Sendable, Equatable, CustomStringConvertible {
    public var field: String
    public var value: String
    public var allowed: String

    public init(field: String, value: String, allowed: String) {
        self.field = field
        self.value = value
        self.allowed = allowed
    }

    public var description: String { "\(field) '\(value)' is out of range (\(allowed))" }
}

/// The ranges of the kinds of numbers the box reads from outside. One place, so a peer's manifest, a bundle and a
/// playlist agree on what a size or a bit rate may be.
public enum OutsideNumbers {
    /// The largest size of a file or a title: 1 PiB (2^50 bytes). A sum of 8,000 such still fits an `Int64`.
    public static let maxBytes: Int64 = 1 << 50
    /// The highest bit rate: 1 Tbit/s.
    public static let maxBitsPerSecond = 1_000_000_000_000
    /// The longest duration: 100 years in seconds (a recording, a rental, a title). Far inside `Int64` in ms.
    public static let maxSeconds = 3_155_760_000.0

    /// A size in bytes (a file, a range's length or offset, an estimate).
    public static func bytes(_ field: String) -> OutsideNumber<Int64> {
        OutsideNumber(field, 0...maxBytes, unit: "bytes")
    }

    /// A bit rate in bits per second (`BANDWIDTH`, `@bandwidth`, `--bitrate`).
    public static func bitsPerSecond(_ field: String) -> OutsideNumber<Int> {
        OutsideNumber(field, 0...maxBitsPerSecond, unit: "bit/s")
    }

    /// A duration in seconds (a segment, a title, a period).
    public static func seconds(_ field: String) -> OutsideNumber<Double> {
        OutsideNumber(field, 0...maxSeconds, unit: "s")
    }

    /// The bytes `bitsPerSecond` fill in `seconds`, held to ``maxBytes``: an estimate never overflows, whatever
    /// rate and duration it is made from (a non-finite or negative duration counts as none).
    public static func estimate(bitsPerSecond: Int, seconds: Double) -> Int64 {
        let rate = Double(min(max(bitsPerSecond, 0), maxBitsPerSecond))
        let bytes = rate / 8 * (seconds.isFinite ? max(seconds, 0) : 0)
        return bytes >= Double(maxBytes) ? maxBytes : Int64(bytes.rounded())
    }

    /// The sum of byte counts, saturating at `Int64.max` instead of trapping (each term counted from 0 up).
    public static func sum(_ values: some Sequence<Int64>) -> Int64 {
        values.reduce(Int64(0)) { total, value in total.saturatingAdding(max(value, 0)) }
    }
}

extension Int64 {
    /// `self + other`, held to `Int64.min…Int64.max` instead of trapping.
    public func saturatingAdding(_ other: Int64) -> Int64 {
        let (result, overflow) = addingReportingOverflow(other)
        guard overflow else { return result }
        return other > 0 ? .max : .min
    }

    /// `self - other`, held to `Int64.min…Int64.max` instead of trapping.
    public func saturatingSubtracting(_ other: Int64) -> Int64 {
        let (result, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return result }
        return other > 0 ? .min : .max
    }
}
