import StowageProtocol

/// How ffmpeg writes each ``SingleFileFormat``.
extension SingleFileFormat {
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
