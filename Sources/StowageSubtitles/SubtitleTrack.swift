import Foundation

/// One subtitle track of an offline copy, as its files in the title's folder: what ``TitleSubtitles`` reads.
public struct SubtitleTrack: Sendable, Equatable {
    /// How the track's files hold its cues.
    public enum Source: Sendable, Equatable {
        /// HLS WebVTT segments, each with its own `X-TIMESTAMP-MAP`.
        case segmentedWebVTT
        /// One WebVTT file (a DASH sidecar).
        case webVTTFile
        /// One TTML document (a DASH sidecar).
        case ttmlFile
        /// `wvtt` or `stpp` in fragmented MP4: `initSection` (relative), then the fragments.
        case fragmentedMP4(initSection: String)
    }

    /// The language as the playlist or manifest gives it (`LANGUAGE`, `@lang`), else the rendition's name.
    public var language: String
    public var source: Source
    /// The files in order, relative to the title's folder (already checked to stay inside it).
    public var files: [String]
    /// Seconds added to the track's own times to place them on the presentation (a DASH Period's start less its
    /// `presentationTimeOffset`).
    public var shift: Double
    /// The DASH Period the track belongs to (0 for HLS): a language's tracks of successive Periods are one track.
    public var period: Int

    public init(language: String, source: Source, files: [String], shift: Double = 0, period: Int = 0) {
        self.period = period
        self.language = language
        self.source = source
        self.files = files
        self.shift = shift
    }

    /// The language as a file name: `[A-Za-z0-9-]`, at most 35 characters (`und` when nothing is left), as the
    /// gateway's `subtitles/<lang>.vtt` paths accept it.
    public var fileLanguage: String { Self.fileLanguage(language) }

    public static func fileLanguage(_ language: String) -> String {
        let kept = language.unicodeScalars.filter {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-")
        }
        let name = String(String.UnicodeScalarView(kept.prefix(35)))
        return name.isEmpty ? "und" : name
    }
}
