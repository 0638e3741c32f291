import StowageProtocol

/// How far a remux is: the media time written, of the title's duration, and the bytes written.
public struct RemuxProgress: Sendable, Equatable {
    public var seconds: Double
    public var duration: Double?
    public var bytes: Int64

    /// 0…1 of the media written; nil when the duration is unknown.
    public var fraction: Double? {
        guard let duration, duration > 0 else { return nil }
        return min(max(seconds / duration, 0), 1)
    }
}

/// The single file written (`stowctl remux --json` prints it): where, how big, and what it holds.
public struct RemuxReport: Codable, Sendable, Equatable {
    public var path: String
    public var format: SingleFileFormat
    public var bytes: Int64
    public var durationSeconds: Double?
    public var videoStreams: Int
    /// The audio streams' languages as stored (`und` when a rendition had none), in the file's order.
    public var audioLanguages: [String]
    public var subtitleLanguages: [String]
}
