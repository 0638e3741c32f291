import Foundation

/// A title's subtitles as cues, per language: **the one function** that reads an offline copy's subtitle tracks,
/// whatever their format (segmented WebVTT, `wvtt` or `stpp` in fMP4, a TTML or WebVTT sidecar), for every
/// process that needs them as text — the integrity worker writing `subtitles/<lang>.vtt` and `.srt` when a title
/// completes, the gateway serving them when those files are not there (yet), and a single-file remux embedding
/// them. Pure file reads; no network, no store.
public enum TitleSubtitles {
    /// The largest subtitle track read (all its files): 8 MiB (hours of dense subtitles are well under 1 MiB).
    public static let maxBytes = 8 << 20
    /// Where the written files go in a title's folder: `subtitles/<lang>.vtt` and `.srt`.
    public static let folder = "subtitles"

    /// The title's subtitle tracks, one a language (the first track of a language wins), in playlist or manifest
    /// order (a DASH title with several Periods: one track a language, its Periods' files together).
    public static func tracks(inTitleFolder directory: String) -> [SubtitleTrack] {
        var out: [SubtitleTrack] = []
        for track in TitleSubtitleTracks.tracks(inTitleFolder: directory) {
            if out.contains(where: { $0.fileLanguage == track.fileLanguage }) { continue }
            out.append(track)
        }
        return out
    }

    /// The languages (as file names, ``SubtitleTrack/fileLanguage``) of the title's subtitle tracks.
    public static func languages(inTitleFolder directory: String) -> [String] {
        tracks(inTitleFolder: directory).map(\.fileLanguage)
    }

    /// **The one function:** the cues of the title's subtitles in `language` (a ``SubtitleTrack/fileLanguage``),
    /// on the presentation's timeline, in time order, merged where a packager cut a cue at a segment boundary.
    /// Throws ``SubtitleError`` naming the file at fault (missing, malformed, unsupported) or the language the
    /// title has none in.
    public static func cues(language: String, inTitleFolder directory: String) throws(SubtitleError) -> [SubtitleCue] {
        let all = TitleSubtitleTracks.tracks(inTitleFolder: directory)
        let matching = all.filter { $0.fileLanguage == language }
        guard !matching.isEmpty else {
            let have = Set(all.map(\.fileLanguage)).sorted().joined(separator: ", ")
            throw SubtitleError(
                .noTrack, file: "", "no subtitles in '\(language)' (this title has: \(have.isEmpty ? "none" : have))")
        }
        // A DASH title's Periods each give a track of the language: their cues together, the first track of each
        // Period. (An HLS title with two renditions of one language, say SDH and forced, keeps the first.)
        var tracks: [SubtitleTrack] = []
        for track in matching where !tracks.contains(where: { $0.period == track.period }) { tracks.append(track) }
        var cues: [SubtitleCue] = []
        var budget = maxBytes
        for track in tracks { cues += try read(track, directory: directory, budget: &budget) }
        return SubtitleCue.merged(cues)
    }

    /// ``cues(language:inTitleFolder:)`` as a WebVTT document.
    public static func webVTT(language: String, inTitleFolder directory: String) throws(SubtitleError) -> String {
        WebVTTText.document(try cues(language: language, inTitleFolder: directory))
    }

    /// ``cues(language:inTitleFolder:)`` as a SubRip document.
    public static func srt(language: String, inTitleFolder directory: String) throws(SubtitleError) -> String {
        SRTText.document(try cues(language: language, inTitleFolder: directory))
    }

    /// The cues of one track's files.
    static func read(_ track: SubtitleTrack, directory: String, budget: inout Int) throws(SubtitleError)
        -> [SubtitleCue]
    {
        func load(_ file: String) throws(SubtitleError) -> [UInt8] {
            guard let data = FileManager.default.contents(atPath: directory + "/" + file) else {
                throw SubtitleError(.missingFile, file: file, "the file is not in the title's folder")
            }
            budget -= data.count
            guard budget >= 0 else {
                throw SubtitleError(
                    .tooLarge, file: file, "the '\(track.language)' subtitles exceed \(maxBytes >> 20) MiB")
            }
            return [UInt8](data)
        }
        func text(_ file: String) throws(SubtitleError) -> String {
            let bytes = try load(file)
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw SubtitleError(.malformed, file: file, "the file is not UTF-8 text")
            }
            return text
        }
        let shifted = { (cues: [SubtitleCue]) in
            cues.map {
                SubtitleCue(
                    start: $0.start + track.shift, end: $0.end + track.shift, settings: $0.settings,
                    text: $0.text)
            }
        }
        switch track.source {
        case .segmentedWebVTT:
            var texts: [String] = []
            for file in track.files { texts.append(try text(file)) }
            return shifted(try WebVTTText.joined(texts, names: track.files))
        case .webVTTFile:
            guard let file = track.files.first else { return [] }
            return shifted(try WebVTTText.cues(try text(file), file: file))
        case .ttmlFile:
            guard let file = track.files.first else { return [] }
            do { return shifted(try TTMLDocument.cues(try load(file))) } catch { throw error.naming(file) }
        case .fragmentedMP4(let initSection):
            let header: FragmentedTextTrack
            do { header = try FragmentedTextTrack(initSection: try load(initSection)) } catch {
                throw error.naming(initSection)
            }
            var cues: [SubtitleCue] = []
            for file in track.files {
                do {
                    let bytes = try load(file)
                    for sample in try header.samples(bytes) {
                        switch header.format {
                        case .wvtt: cues += try WVTTSample.cues(sample)
                        case .stpp: cues += try TTMLDocument.cues(sample.bytes)
                        }
                    }
                } catch { throw error.naming(file) }
            }
            return shifted(cues)
        }
    }
}
