/// The container of a title's single file: MP4 (index first, subtitles as `mov_text`) or Matroska (subtitles as
/// WebVTT text). Named by the output's extension (`stowctl remux OUT.mp4`) or by `submit --file mp4|mkv`.
public enum SingleFileFormat: String, Codable, Sendable, CaseIterable {
    case mp4, mkv

    /// The format a path's extension names (`.mp4`, `.mkv`, any case); nil for any other.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        self.init(rawValue: path[path.index(after: dot)...].lowercased())
    }

    /// The file the box writes into the title's folder (`submit --file`), and the gateway serves.
    public var fileName: String { "title.\(rawValue)" }

    /// ffmpeg's muxer.
    var muxer: String {
        switch self {
        case .mp4: "mp4"
        case .mkv: "matroska"
        }
    }

    /// The subtitle codec the container carries (text either way, from the same WebVTT).
    var subtitleCodec: String {
        switch self {
        case .mp4: "mov_text"
        case .mkv: "webvtt"
        }
    }

    /// Container options: an MP4's index (`moov`) first, so it plays while it downloads.
    var containerOptions: [String] {
        switch self {
        case .mp4: ["-movflags", "+faststart"]
        case .mkv: []
        }
    }
}
