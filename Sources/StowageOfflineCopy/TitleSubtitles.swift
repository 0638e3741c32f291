import Foundation
import StowageProtocol

/// A title's subtitle text per language as one WebVTT file. The one function every reader of a title's subtitles
/// uses: the gateway's `/titles/<t>/subtitles/<lang>.vtt`, `stowctl remux` and the box's single file (which embed
/// it), so a subtitle format the box learns to read is read alike by all of them.
///
/// Today: the segmented WebVTT rendition of an HLS offline copy, its segments joined by ``WebVTTJoin``.
public enum TitleSubtitles {
    /// The largest subtitle rendition joined into one file: 8 MiB (hours of dense subtitles are well under 1 MiB).
    public static let maxBytes = 8 << 20

    /// The subtitle languages of the offline copy in `directory`, in the master's order (empty: none, or no HLS
    /// master).
    public static func languages(directory: String) -> [String] {
        master(directory)?.subtitles.map(\.language) ?? []
    }

    /// The offline copy's subtitles in `language`, as one WebVTT file.
    public static func webVTT(language: String, directory: String) throws(TitleSubtitlesError) -> String {
        guard let master = master(directory) else {
            throw .notFound("this title has no HLS master playlist with subtitles")
        }
        guard let rendition = master.subtitles.first(where: { $0.language == language }) else {
            let have = master.subtitles.map(\.language).joined(separator: ", ")
            throw .notFound("no subtitles in '\(language)' (this title has: \(have.isEmpty ? "none" : have))")
        }
        guard let playlistPath = TitlePath.relative(rawPath: rendition.uri),
            let text = try? String(contentsOfFile: directory + "/" + playlistPath, encoding: .utf8),
            let uris = LocalMaster.segments(ofMedia: text)
        else { throw .notFound("the '\(language)' subtitles' playlist cannot be read") }
        let folder = (playlistPath as NSString).deletingLastPathComponent
        var segments: [String] = [], total = 0
        for uri in uris {
            guard let relative = TitlePath.relative(rawPath: folder.isEmpty ? uri : folder + "/" + uri),
                let data = FileManager.default.contents(atPath: directory + "/" + relative)
            else { throw .notFound("a segment of the '\(language)' subtitles is missing: \(uri)") }
            total += data.count
            guard total <= maxBytes else {
                throw TitleSubtitlesError(
                    kind: .tooLarge, message: "the '\(language)' subtitles exceed \(maxBytes >> 20) MiB")
            }
            segments.append(String(decoding: data, as: UTF8.self))
        }
        return WebVTTJoin.join(segments)
    }

    /// The offline copy's master playlist (`master.m3u8`), when it is one.
    public static func master(_ directory: String) -> LocalMaster? {
        (try? String(contentsOfFile: directory + "/master.m3u8", encoding: .utf8)).flatMap(LocalMaster.init(text:))
    }
}

/// Why a title's subtitles in a language cannot be given: none in that language (or unreadable), or too large.
public struct TitleSubtitlesError: Error, CustomStringConvertible {
    public enum Kind: Sendable { case notFound, tooLarge }
    public let kind: Kind
    public let message: String
    public var description: String { message }

    static func notFound(_ message: String) -> Self { Self(kind: .notFound, message: message) }
}
