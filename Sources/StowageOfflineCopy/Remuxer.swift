import Foundation
import StowageProtocol
import StowageSubtitles

/// Writes an offline copy as one `.mp4` or `.mkv` file with ffmpeg, without re-encoding (`-c copy`): the video,
/// every audio rendition kept (each tagged with its stored language), and every subtitle language embedded from
/// ``TitleSubtitles`` (`mov_text` in MP4, WebVTT in Matroska). An MP4 has its index first (`+faststart`); no
/// chapters are written. The file appears under its name only when complete (written as `NAME.part`, then
/// renamed), so a failed or interrupted run leaves nothing half-written behind.
///
/// Whether a title may become one file at all is ``SingleFileClearance``'s, asked before this runs.
public struct Remuxer: Sendable {
    /// The title's folder, and its entry (the offline master or local MPD), relative to it.
    public let directory: String
    public let entry: String
    public let format: SingleFileFormat

    public init(directory: String, entry: String, format: SingleFileFormat) {
        self.directory = directory
        self.entry = entry
        self.format = format
    }

    /// Writes the file at `output`, reporting progress as ffmpeg gives it (about twice a second).
    public func write(to output: String, progress: (RemuxProgress) -> Void) throws(RemuxError) -> RemuxReport {
        let entryPath = directory + "/" + entry
        guard FileManager.default.fileExists(atPath: entryPath) else {
            throw RemuxError(.notFound, "the offline copy's entry \(entryPath) is missing")
        }
        // Only local files are read; an HLS copy's segments may have any extension (`.m4s`, `.aac`, none).
        let inputOptions =
            ["-protocol_whitelist", "file"] + (entry.hasSuffix(".m3u8") ? ["-allowed_extensions", "ALL"] : [])
        let probe = try MediaProbe.probe(entryPath, inputOptions: inputOptions)
        guard !probe.video.isEmpty || !probe.audio.isEmpty else {
            throw RemuxError(.integrity, "the offline copy \(entryPath) has no video or audio stream ffmpeg can read")
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("stowage-remux-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let subtitles = try subtitleInputs(in: scratch)
        let partial = output + ".part"
        var arguments = ["-nostdin", "-v", "error", "-y"]
        var maps: [String] = []
        if entry.hasSuffix(".m3u8") {
            arguments += inputOptions + ["-i", entryPath]
            maps = ["0:V?", "0:a?"]
        } else {
            // ffmpeg 5.1's DASH reader loses a track's last packet when it reads several tracks of one input, so
            // each track is read from an input of its own (the reader fetches only the track mapped from it).
            for (n, index) in (probe.video + probe.audio.map(\.index)).enumerated() {
                arguments += inputOptions + ["-i", entryPath]
                maps.append("\(n):\(index)")
            }
        }
        for subtitle in subtitles {
            // The joined WebVTT's times are the presentation's, as the media's are once ffmpeg starts them at 0.
            arguments += ["-f", "webvtt", "-i", subtitle.path]
        }
        let mediaInputs = entry.hasSuffix(".m3u8") ? 1 : maps.count
        for n in subtitles.indices { maps.append("\(mediaInputs + n):s") }
        for map in maps { arguments += ["-map", map] }
        arguments += ["-c", "copy", "-c:s", format.subtitleCodec, "-map_chapters", "-1"]
        for (n, stream) in probe.audio.enumerated() {
            if let tag = stream.language.flatMap(Self.containerLanguage) {
                arguments += ["-metadata:s:a:\(n)", "language=\(tag)"]
            }
        }
        for (n, subtitle) in subtitles.enumerated() {
            if let tag = Self.containerLanguage(subtitle.language) {
                arguments += ["-metadata:s:s:\(n)", "language=\(tag)"]
            }
        }
        arguments += format.containerOptions + ["-f", format.muxer, "-progress", "pipe:1", "-nostats", partial]
        var seconds = 0.0, bytes: Int64 = 0
        let run = try ToolProcess(tool: "ffmpeg", arguments: arguments).run { line in
            if line.hasPrefix("out_time_us="), let us = Double(line.dropFirst(12)), us.isFinite, us >= 0 {
                seconds = us / 1_000_000
            } else if line.hasPrefix("total_size="), let size = Int64(line.dropFirst(11)) {
                bytes = size
            } else if line.hasPrefix("progress=") {
                progress(RemuxProgress(seconds: seconds, duration: probe.duration, bytes: bytes))
            }
        }
        guard run.status == 0 else {
            try? FileManager.default.removeItem(atPath: partial)
            let said = MediaProbe.lastLine(run.stderr) ?? "exit status \(run.status)"
            if run.stderr.contains("No space left on device") {
                throw RemuxError(.diskFull, "no space left on the disk for \(output): \(said)")
            }
            throw RemuxError(.io, "ffmpeg could not write \(output): \(said)")
        }
        do {
            if FileManager.default.fileExists(atPath: output) { try FileManager.default.removeItem(atPath: output) }
            try FileManager.default.moveItem(atPath: partial, toPath: output)
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw RemuxError(.io, "cannot put the file in place at \(output): \(error.localizedDescription)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? NSNumber)?.int64Value
        return RemuxReport(
            path: output, format: format, bytes: size ?? bytes, durationSeconds: probe.duration,
            videoStreams: probe.video.count, audioLanguages: probe.audio.map { $0.language ?? "und" },
            subtitleLanguages: subtitles.map(\.language))
    }

    /// Each subtitle language as a WebVTT file in `scratch`, from ``TitleSubtitles`` (the one reader of a title's
    /// subtitle tracks: segmented WebVTT, `wvtt`/`stpp` in fMP4, TTML and WebVTT sidecars, HLS and DASH alike).
    private func subtitleInputs(in scratch: String) throws(RemuxError) -> [(language: String, path: String)] {
        let languages = TitleSubtitles.languages(inTitleFolder: directory)
        guard !languages.isEmpty else { return [] }
        do {
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        } catch { throw RemuxError(.io, "cannot create \(scratch) for the subtitles: \(error.localizedDescription)") }
        var out: [(String, String)] = []
        for (n, language) in languages.enumerated() {
            let cues: [SubtitleCue]
            do { cues = try TitleSubtitles.cues(language: language, inTitleFolder: directory) } catch {
                throw RemuxError(
                    error.code == .tooLarge ? .refused : .integrity,
                    "the '\(language)' subtitles cannot be embedded: \(error)")
            }
            // A language without a cue has nothing to embed (and ffmpeg reads no stream from it).
            guard !cues.isEmpty else { continue }
            let path = "\(scratch)/\(n).vtt"
            guard FileManager.default.createFile(atPath: path, contents: Data(WebVTTText.document(cues).utf8)) else {
                throw RemuxError(.io, "cannot write the '\(language)' subtitles to \(path)")
            }
            out.append((language, path))
        }
        return out
    }

    /// A stored language tag (`en`, `pt-BR`, `deu`) as the ISO 639-2/B code MP4 and Matroska carry (`eng`, `por`,
    /// `ger`); nil when it names no language (the stream stays untagged).
    static func containerLanguage(_ tag: String) -> String? {
        guard let code = Locale.Language(identifier: tag).languageCode?.identifier(.alpha3) else { return nil }
        return bibliographic[code] ?? code
    }

    /// The ISO 639-2 languages whose bibliographic code (what containers use) differs from the terminology code
    /// (what `Locale` gives).
    static let bibliographic = [
        "sqi": "alb", "hye": "arm", "eus": "baq", "mya": "bur", "zho": "chi", "ces": "cze", "nld": "dut",
        "fra": "fre", "kat": "geo", "deu": "ger", "ell": "gre", "isl": "ice", "mkd": "mac", "mri": "mao",
        "msa": "may", "fas": "per", "ron": "rum", "slk": "slo", "bod": "tib", "cym": "wel",
    ]
}
