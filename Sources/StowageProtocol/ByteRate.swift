import Foundation

/// Bytes per second as operators write them: a ``ByteSize`` with an optional `/s` (`2M`, `2M/s`, `500K`).
///
/// The same binary suffixes as sizes (`2M` = 2,097,152 bytes/s): `--bandwidth`, `--scrub-budget`,
/// `--min-body-rate`, the `--bandwidth-schedule` rates and `stowage-origin --throttle-bps` read alike.
public struct ByteRate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// What every rate accepts, for error messages and help.
    public static let accepted =
        "bytes per second, or a number with K, M, G or T (binary: 1K = 1024 bytes/s; KB and KiB alike), /s optional"

    public let bytesPerSecond: Int64

    public init(bytesPerSecond: Int64) { self.bytesPerSecond = bytesPerSecond }

    /// Parses a rate up to 1 PiB/s.
    public init(parsing text: String) throws(UnitError) {
        var body = Substring(text.trimmingCharacters(in: .whitespaces))
        if body.hasSuffix("/s") { body = body.dropLast(2) }
        do {
            bytesPerSecond = try ByteSize.parse(String(body), what: "rate", accepted: Self.accepted)
        } catch {
            throw UnitError(error.code, text, error.reason)
        }
    }

    /// `2M/s`, `1536K/s`, `100/s`.
    public var description: String { ByteSize.spell(bytesPerSecond) + "/s" }

    public static func < (a: ByteRate, b: ByteRate) -> Bool { a.bytesPerSecond < b.bytesPerSecond }
}
