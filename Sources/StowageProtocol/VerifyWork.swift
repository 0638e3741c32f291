/// An integrity worker's task: check one stored file (for a file the box writes itself, write it first), and what
/// it reports.
public struct VerifyWork: Codable, Sendable, Equatable {
    /// Relative to the titles root.
    public var path: String
    public var expectedBytes: Int64
    /// The SHA-256 recorded at the first verification; nil for a file just fetched (the check records it).
    public var sha256: String?
    public var container: Container
    /// Encrypted segments are opaque: only length and hash are checked.
    public var encrypted: Bool
    /// Read at most this fast (background scrub's I/O budget); nil = as fast as the disk allows.
    public var bytesPerSecond: Int64?
    /// An encrypted file's key and IV: its container is checked after decryption in memory (see ``FetchWork``).
    public var decryption: SegmentDecryption?
    /// Write the file first: the title's subtitles converted (a ``PlannedResource/Kind/subtitleText`` file not
    /// written yet); then it is verified as any file, its length and hash reported.
    public var subtitles: SubtitleConversion?
    /// Write the file first: the title's single file (`title.mp4`/`.mkv`, a ``PlannedResource/Kind/singleFile``
    /// file not written yet), remuxed from its offline copy; then verified as any file, like ``subtitles``.
    public var singleFile: SingleFileOrder?

    public init(path: String, expectedBytes: Int64, sha256: String?, container: Container, encrypted: Bool) {
        self.path = path
        self.expectedBytes = expectedBytes
        self.sha256 = sha256
        self.container = container
        self.encrypted = encrypted
    }
}

/// Which subtitles a verify task writes before it checks them: the title's subtitles in `language` (a language
/// as a file name), as WebVTT or SubRip.
public struct SubtitleConversion: Codable, Sendable, Equatable {
    public var language: String
    public var srt: Bool

    public init(language: String, srt: Bool) {
        self.language = language
        self.srt = srt
    }
}

/// Which single file a verify task writes before it checks it: the title's offline copy, read from its entry
/// (`master.m3u8` or `manifest.mpd`, relative to the title's folder), as `format`.
public struct SingleFileOrder: Codable, Sendable, Equatable {
    public var format: SingleFileFormat
    public var entry: String

    public init(format: SingleFileFormat, entry: String) {
        self.format = format
        self.entry = entry
    }
}

public struct VerifyReport: Codable, Sendable, Equatable {
    public var ok: Bool
    /// Why it failed, naming the check.
    public var reason: String?
    /// Lowercase hex SHA-256 of the file as read from disk.
    public var sha256: String?
    /// A file written by the task (``VerifyWork/subtitles``): its length.
    public var bytes: Int64?
    /// The title's subtitles could not be converted (a malformed or unsupported subtitle file, named), or its single
    /// file not made (ffmpeg's words): no file was written, and writing it again would fail alike.
    public var notConverted: String?

    public init(ok: Bool, reason: String? = nil, sha256: String? = nil) {
        self.ok = ok
        self.reason = reason
        self.sha256 = sha256
    }
}
