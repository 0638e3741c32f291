/// Why an operator's size, rate or duration (`--quota 500M`, `STOWAGE_GIVE_UP_AFTER=15m`) was refused: a code for
/// tests and callers, and a message that says what was wrong and what is accepted.
public struct UnitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of mistake it is.
    public enum Code: String, Sendable, Equatable {
        /// Nothing was given (or only spaces).
        case empty
        /// A leading minus: no size, rate or duration is negative.
        case negative
        /// Not a number followed by a unit Stowage knows.
        case malformed
        /// A duration written as a bare number where a unit is required.
        case missingUnit = "missing-unit"
        /// Bits (`Mb`, `kbit`) where Stowage counts bytes.
        case bits
        /// Past the largest value Stowage takes (1 PiB, 1 PiB/s, 100 years).
        case tooLarge = "too-large"
    }

    public let code: Code
    /// The text that was refused.
    public let text: String
    /// What is wrong and what is accepted.
    public let reason: String

    public init(_ code: Code, _ text: String, _ reason: String) {
        self.code = code
        self.text = text
        self.reason = reason
    }

    public var description: String { "'\(text.prefix(80))' \(reason)" }
}
