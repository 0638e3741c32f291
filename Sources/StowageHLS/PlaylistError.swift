/// A playlist that cannot be used, naming the playlist and the line (1-based) where it went wrong.
public struct PlaylistError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The text is not a valid playlist.
        case malformed
        /// A live playlist (no `EXT-X-ENDLIST`): cannot be stored offline.
        case live
        /// Nothing in the playlist matches what was asked for.
        case nothingSelectable = "nothing-selectable"
        /// A URI uses a scheme or form Stowage refuses.
        case refusedURI = "refused-uri"
        /// The playlist is larger than Stowage accepts.
        case tooLarge = "too-large"
    }
    public let kind: Kind
    public let url: String
    /// 1-based line number, or nil when the error is about the whole playlist.
    public let line: Int?
    public let message: String

    public init(_ kind: Kind, url: String, line: Int?, _ message: String) {
        self.kind = kind
        self.url = url
        self.line = line
        self.message = message
    }

    public var description: String {
        if let line { return "playlist \(url) line \(line): \(message)" }
        return "playlist \(url): \(message)"
    }
}
