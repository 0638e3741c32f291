import Foundation
import StowageDASH
import StowageHLS
import StowageProtocol

/// Finds the subtitle tracks of an offline copy from its own entry (`master.m3u8`, or a DASH title's
/// `manifest.mpd`, as the scheduler wrote them): the same files whichever process asks, so the gateway and a worker
/// can never disagree about which files a track is.
enum TitleSubtitleTracks {
    /// The base the local MPD is read against: files are what follows it.
    private static let base = "http://title.invalid/"

    static func tracks(inTitleFolder directory: String) -> [SubtitleTrack] {
        if let text = try? String(contentsOfFile: directory + "/master.m3u8", encoding: .utf8) {
            return hls(master: text, directory: directory)
        }
        if let text = try? String(contentsOfFile: directory + "/manifest.mpd", encoding: .utf8) {
            return dash(manifest: text)
        }
        return []
    }

    // MARK: HLS

    private static func hls(master text: String, directory: String) -> [SubtitleTrack] {
        guard let master = try? MasterPlaylist(text: text, url: base + "master.m3u8") else { return [] }
        var tracks: [SubtitleTrack] = []
        for rendition in master.renditions where rendition.type == "SUBTITLES" {
            guard let uri = rendition.uri, let playlistPath = TitlePath.relative(rawPath: uri),
                let playlist = try? String(contentsOfFile: directory + "/" + playlistPath, encoding: .utf8)
            else { continue }
            let folder = (playlistPath as NSString).deletingLastPathComponent
            let resolve = { (name: String) -> String? in
                TitlePath.relative(rawPath: folder.isEmpty ? name : folder + "/" + name)
            }
            var files: [String] = []
            var initSection: String?
            for line in playlist.split(whereSeparator: \.isNewline) {
                if line.hasPrefix("#EXT-X-MAP:"), let attributes = try? AttributeList(parsing: line.dropFirst(11)),
                    let uri = attributes["URI"]
                {
                    initSection = resolve(uri)
                } else if !line.hasPrefix("#"), !line.trimmingCharacters(in: .whitespaces).isEmpty,
                    let file = resolve(line.trimmingCharacters(in: .whitespaces))
                {
                    if files.last != file { files.append(file) }  // byte ranges of one file: read once
                }
            }
            let source: SubtitleTrack.Source = initSection.map { .fragmentedMP4(initSection: $0) } ?? .segmentedWebVTT
            tracks.append(
                SubtitleTrack(language: rendition.language ?? rendition.name, source: source, files: files))
        }
        return tracks
    }

    // MARK: DASH

    private static func dash(manifest text: String) -> [SubtitleTrack] {
        guard let mpd = try? MPD(text: text, url: base + "manifest.mpd") else { return [] }
        var tracks: [SubtitleTrack] = []
        for (index, period) in mpd.periods.enumerated() {
            for set in period.adaptationSets {
                guard let representation = set.representations.first, isText(set, representation),
                    case .segments(let segments)? = try? SegmentAddresser.address(representation, in: period)
                else { continue }
                let mime = (representation.mimeType ?? set.mimeType ?? "").lowercased()
                let files = segments.segments.compactMap { local($0.location.url) }
                let initSection = segments.initialization.flatMap { local($0.url) }
                let source: SubtitleTrack.Source
                if let initSection {
                    source = .fragmentedMP4(initSection: initSection)
                } else if mime == "text/vtt" {
                    source = .webVTTFile
                } else if mime.contains("ttml") || mime == "application/xml" || mime == "text/xml" {
                    source = .ttmlFile
                } else if let file = files.first {
                    source = .fragmentedMP4(initSection: file)  // one fragmented file: its moov is inside it
                } else {
                    continue
                }
                let shift =
                    period.start - Double(segments.presentationTimeOffset) / Double(max(segments.timescale, 1))
                tracks.append(
                    SubtitleTrack(
                        language: set.lang ?? set.label ?? "und", source: source, files: files, shift: shift,
                        period: index))
            }
        }
        return tracks
    }

    /// A text AdaptationSet: `contentType="text"`, a text MIME type, or `wvtt`/`stpp` codecs.
    private static func isText(_ set: AdaptationSet, _ representation: Representation) -> Bool {
        let codecs = (representation.codecs ?? set.codecs ?? "").lowercased()
        return set.contentType == .text || codecs.hasPrefix("wvtt") || codecs.hasPrefix("stpp")
            || (representation.mimeType ?? set.mimeType ?? "").lowercased().hasPrefix("text/")
    }

    /// A URL of the local MPD as a path in the title's folder (nil when it leaves it).
    private static func local(_ url: String) -> String? {
        guard url.hasPrefix(base) else { return nil }
        return TitlePath.relative(rawPath: String(url.dropFirst(base.count)))
    }
}
