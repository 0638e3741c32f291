/// A selection option with a value Stowage cannot use (`--video-codec vp9`, a catalogue's `videoRange: "hdr"`),
/// naming the option and the values it takes.
public struct SelectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The option as the user wrote it (`--video-codec`, `videoCodec`).
    public let option: String
    public let message: String

    public init(_ option: String, _ message: String) {
        self.option = option
        self.message = message
    }

    public var description: String { "\(option): \(message)" }
}
