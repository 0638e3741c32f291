import StowageProtocol

/// One chosen Representation of one Period as stored offline: its local folder and file names, and where each
/// file comes from. Files are `<folder>/init.mp4` and `<folder>/seg-00001.m4s`, `seg-00002.m4s` … (numbered
/// from 1 in segment order), or a single `<folder>/media.mp4` (`media.m4s` for text) when the source is one file
/// without an initialization segment (a WebVTT sidecar, say). Folders are
/// `p<period>/<kind>-<set>-<representation>[-<lang>]`, so every Period's files are distinct.
public struct LocalTrack: Sendable, Equatable {
    /// One file of the offline copy and its source.
    public struct File: Sendable, Equatable {
        public var kind: PlannedResource.Kind
        public var container: Container
        public var source: SegmentLocation
        /// Relative to the title directory (and to the local MPD).
        public var localPath: String
        /// Seconds (0 for an initialization segment).
        public var duration: Double

        public init(
            kind: PlannedResource.Kind, container: Container, source: SegmentLocation, localPath: String,
            duration: Double
        ) {
            self.kind = kind
            self.container = container
            self.source = source
            self.localPath = localPath
            self.duration = duration
        }
    }

    public var kind: PlannedRendition.Kind
    public var adaptationSet: AdaptationSet
    public var representation: Representation
    public var segments: RepresentationSegments
    /// Relative folder of the track's files, without a trailing slash.
    public var folder: String

    public init(
        kind: PlannedRendition.Kind, adaptationSet: AdaptationSet, representation: Representation,
        segments: RepresentationSegments, folder: String
    ) {
        self.kind = kind
        self.adaptationSet = adaptationSet
        self.representation = representation
        self.segments = segments
        self.folder = folder
    }

    /// The track for `track` of Period `period` of `mpd`, named by the standard layout.
    public init(
        mpd: MPD, period: Int, track: RepresentationSelector.Track, segments: RepresentationSegments
    ) {
        let set = mpd.periods[period].adaptationSets[track.adaptationSet]
        let folder =
            "p\(period)/\(track.kind.rawValue)-\(track.adaptationSet)-\(track.representation)"
            + (set.lang.map { "-" + Self.label($0) } ?? "")
        self.init(
            kind: track.kind, adaptationSet: set, representation: set.representations[track.representation],
            segments: segments, folder: folder)
    }

    /// One file without an initialization segment: kept whole, named by the MPD's `BaseURL`.
    public var isSingleFile: Bool { segments.initialization == nil && segments.segments.count == 1 }

    /// The file extension of the media segments: `webm`, `ts`, else `m4s`. ffmpeg 5.1's DASH reader opens only
    /// URLs with common media extensions (`aac,m4a,m4s,m4v,mov,mp4,webm,ts`): a `.vtt` file makes it refuse the
    /// whole MPD ("not a common multimedia extension"), so text files are named `.m4s` too; players go by the
    /// MPD's `mimeType`, and `File.container` says what the bytes are.
    public var segmentExtension: String {
        switch mimeType {
        case "video/webm", "audio/webm": "webm"
        case "video/mp2t": "ts"
        default: "m4s"
        }
    }

    /// What the files hold, for integrity checks: fMP4, WebVTT, MPEG-TS, or other (WebM, TTML …).
    public var container: Container {
        switch mimeType {
        case "video/mp4", "audio/mp4", "application/mp4": .fmp4
        case "text/vtt": .webVTT
        case "video/mp2t": .mpegTS
        default: .other
        }
    }

    private var mimeType: String { (representation.mimeType ?? adaptationSet.mimeType ?? "").lowercased() }

    /// `init.mp4` (`init.webm` for WebM).
    public var initializationName: String { segmentExtension == "webm" ? "init.webm" : "init.mp4" }

    /// The `SegmentTemplate@media` of the local MPD (relative to the MPD).
    public var mediaTemplate: String { "\(folder)/seg-$Number%05d$.\(segmentExtension)" }

    /// The local path of media segment `index` (0-based; named with number `index + 1`).
    public func segmentPath(_ index: Int) -> String {
        if isSingleFile { return "\(folder)/media.\(container == .fmp4 ? "mp4" : segmentExtension)" }
        let digits = String(index + 1)
        return "\(folder)/seg-\(String(repeating: "0", count: max(0, 5 - digits.count)) + digits).\(segmentExtension)"
    }

    /// The local path of the initialization segment, if there is one.
    public var initializationPath: String? {
        segments.initialization == nil ? nil : "\(folder)/\(initializationName)"
    }

    /// Every file to fetch, initialization first, with its local path.
    public var files: [File] {
        var files: [File] = []
        if let source = segments.initialization, let path = initializationPath {
            files.append(File(kind: .initSection, container: container, source: source, localPath: path, duration: 0))
        }
        let kind: PlannedResource.Kind = self.kind == .subtitles ? .subtitle : .segment
        for (index, segment) in segments.segments.enumerated() {
            files.append(
                File(
                    kind: kind, container: container, source: segment.location, localPath: segmentPath(index),
                    duration: segment.duration))
        }
        return files
    }

    /// A folder-safe label: `[a-z0-9-]`, at most 24 characters.
    static func label(_ text: String) -> String {
        let cleaned = text.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" }
        let joined = String(cleaned).split(separator: "-").joined(separator: "-")
        return joined.isEmpty ? "x" : String(joined.prefix(24))
    }
}
