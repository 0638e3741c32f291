/// A fill window or bandwidth schedule that cannot be read: what was wrong and the text that was given, so the
/// operator can correct the option (`--fill-window`, `--bandwidth-schedule`, `submit --window`) or the catalogue.
public struct ScheduleSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of mistake it is.
    public enum Code: String, Sendable, Equatable {
        /// A window that is not `HH:MM-HH:MM` (or opens and closes at the same time).
        case malformedWindow = "malformed-window"
        /// A rate that is not a ``ByteRate`` (bytes per second, binary K, M, G, T), nor `unlimited`.
        case malformedRate = "malformed-rate"
        /// A schedule entry that is not `WINDOW=RATE` or `*=RATE`, or an empty schedule.
        case malformedEntry = "malformed-entry"
    }

    public let code: Code
    /// The text that was refused.
    public let text: String
    /// What it should look like.
    public let reason: String

    public init(_ code: Code, _ text: String, _ reason: String) {
        self.code = code
        self.text = text
        self.reason = reason
    }

    public var description: String { "'\(text.prefix(200))': \(reason)" }
}
