/// The container of a title's single file: MP4 (index first, subtitles as `mov_text`) or Matroska (subtitles as
/// WebVTT text). Named by the output's extension (`stowctl remux OUT.mp4`), by `submit --file mp4|mkv` or by a
/// catalogue entry's `file`. How ffmpeg writes each is StowageOfflineCopy's (``Remuxer``).
public enum SingleFileFormat: String, Codable, Sendable, CaseIterable {
    case mp4, mkv

    /// The format a path's extension names (`.mp4`, `.mkv`, any case); nil for any other.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        self.init(rawValue: path[path.index(after: dot)...].lowercased())
    }

    /// The file the box writes into the title's folder (`submit --file`), and the gateway serves.
    public var fileName: String { "title.\(rawValue)" }
}

/// What the box's single file of a title came to (`status --json` `file`): waiting to be written, written (and
/// verified, counted in the title's size), or not made (the reason in `message`; the HLS/DASH copy is whole).
public struct SingleFileStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        case pending, written
        case notMade = "not-made"
    }

    public var format: SingleFileFormat
    /// Absolute, in the title's folder.
    public var path: String
    public var state: State
    /// Its length once written.
    public var bytes: Int64?
    /// Why it was not made (a refusal under the quota, ffmpeg's words), else null.
    public var message: String?

    public init(format: SingleFileFormat, path: String, state: State, bytes: Int64? = nil, message: String? = nil) {
        self.format = format
        self.path = path
        self.state = state
        self.bytes = bytes
        self.message = message
    }
}
