import Foundation

/// A number of bytes as operators write it: plain bytes, or a number with `K`, `M`, `G` or `T`.
///
/// The suffixes are binary, everywhere in Stowage (sizes and rates alike): `1K` is 1024 bytes, `1M` 1024², `1G`
/// 1024³, `1T` 1024⁴. `KiB` and `KB` (any case of the letter, with or without `i`) are other spellings of `K`, so
/// `500M`, `500MB` and `500MiB` are the same 524,288,000 bytes. A lowercase `b` is refused: it reads as bits. One
/// parser, so `--quota`, `--disk-cushion`, `--bandwidth` and the `--bandwidth-schedule` rates cannot disagree.
public struct ByteSize: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// What every size accepts, for error messages and help.
    public static let accepted = "bytes, or a number with K, M, G or T (binary: 1K = 1024 bytes; KB and KiB alike)"

    public let bytes: Int64

    public init(bytes: Int64) { self.bytes = bytes }

    /// Parses a size up to ``OutsideNumbers/maxBytes`` (1 PiB); see the type's documentation for the spellings.
    public init(parsing text: String) throws(UnitError) {
        bytes = try Self.parse(text, what: "size", accepted: Self.accepted)
    }

    /// The shortest exact spelling: `500M`, `1536K`, or plain bytes.
    public var description: String { Self.spell(bytes) }

    public static func < (a: ByteSize, b: ByteSize) -> Bool { a.bytes < b.bytes }

    /// Bytes from `text`; `what` and `accepted` word the errors (a rate says "rate" and its own forms).
    static func parse(_ raw: String, what: String, accepted: String) throws(UnitError) -> Int64 {
        let text = raw.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw UnitError(.empty, raw, "is empty: a \(what) is \(accepted)") }
        guard !text.hasPrefix("-") else { throw UnitError(.negative, raw, "is negative: a \(what) is \(accepted)") }
        let number = text.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let suffix = text.dropFirst(number.count)
        guard let factor = factor(of: suffix) else {
            let bits = suffix.hasSuffix("b") || suffix.lowercased().hasSuffix("bit")
            if bits {
                throw UnitError(.bits, raw, "reads as bits: Stowage counts bytes; write \(number)\(suffix.prefix(1))")
            }
            throw UnitError(.malformed, raw, "is not a \(what): a \(what) is \(accepted)")
        }
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard !number.isEmpty, parts.count <= 2, parts.allSatisfy({ !$0.isEmpty }) else {
            throw UnitError(.malformed, raw, "is not a \(what): a \(what) is \(accepted)")
        }
        let tooLarge = UnitError(.tooLarge, raw, "is more than 1P, the largest \(what) Stowage takes")
        if parts.count == 1 {
            guard let whole = Int64(number) else { throw tooLarge }
            let (product, overflow) = whole.multipliedReportingOverflow(by: factor)
            guard !overflow, product <= OutsideNumbers.maxBytes else { throw tooLarge }
            return product
        }
        guard factor > 1 else {
            throw UnitError(.malformed, raw, "is a fraction of a byte: a \(what) is \(accepted)")
        }
        guard let value = Double(number), value * Double(factor) <= Double(OutsideNumbers.maxBytes) else {
            throw tooLarge
        }
        return Int64(value * Double(factor))
    }

    /// The multiplier a suffix stands for, or nil if it is none Stowage knows. Case-insensitive but for `b`.
    private static func factor(of suffix: Substring) -> Int64? {
        var rest = suffix
        if rest.hasSuffix("B") { rest = rest.dropLast() }
        if rest.isEmpty { return 1 }
        if rest.count == 2, rest.last == "i" || rest.last == "I" { rest = rest.dropLast() }
        guard rest.count == 1, let letter = rest.first else { return nil }
        switch letter {
        case "K", "k": return 1 << 10
        case "M", "m": return 1 << 20
        case "G", "g": return 1 << 30
        case "T", "t": return 1 << 40
        default: return nil
        }
    }

    /// `bytes` with the largest suffix that divides it exactly.
    static func spell(_ bytes: Int64) -> String {
        guard bytes != 0 else { return "0" }
        for (letter, shift) in [("T", 40), ("G", 30), ("M", 20), ("K", 10)] where bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(letter)"
        }
        return "\(bytes)"
    }
}
