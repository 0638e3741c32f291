/// Why a subtitle track could not be read: the file, and what in it is wrong, so the operator knows which
/// subtitle is affected and the title's other files are not suspected.
public struct SubtitleError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The title has no subtitle track in that language.
        case noTrack = "no-track"
        /// A file the track's playlist or manifest names is not in the title's folder.
        case missingFile = "missing-file"
        /// A file's bytes are not what its format says (a malformed box, sample, cue or TTML document).
        case malformed
        /// A format this reader does not convert (another sample entry than `wvtt`/`stpp`, encrypted text).
        case unsupported
        /// The track is larger than ``TitleSubtitles/maxBytes``.
        case tooLarge = "too-large"
    }

    public var code: Code
    /// Relative to the title's folder; empty when no single file is at fault.
    public var file: String
    public var message: String

    public init(_ code: Code, file: String, _ message: String) {
        self.code = code
        self.file = file
        self.message = message
    }

    public var description: String { file.isEmpty ? message : "\(file): \(message)" }

    /// The same error, naming `file` when it named none yet.
    func naming(_ file: String) -> SubtitleError {
        var copy = self
        if copy.file.isEmpty { copy.file = file }
        return copy
    }
}
