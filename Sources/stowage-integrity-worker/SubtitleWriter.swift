import Foundation
import StowageProtocol
import StowageSubtitles

/// Writes a title's `subtitles/<lang>.vtt` or `.srt` (``TitleSubtitles``, the one reader of subtitle tracks) when
/// the scheduler asks for it, which is once every other file of the title is verified: the subtitle files it reads
/// are then whole and checked. It runs in the integrity worker because the next step is that worker's own (the
/// written file is read back, hashed and reported like any fetched file), and because it is a pure read of the
/// title's folder that needs neither the network nor a process of its own.
enum SubtitleWriter {
    /// What came of it: the file written, or the conversion's error naming the subtitle file at fault.
    enum Outcome {
        case written(bytes: Int)
        case notConverted(String)
    }

    /// Writes `conversion` to `path` (inside the title folder `directory`) durably: a temporary file, `fsync`,
    /// then renamed into place, so a crash leaves the old file or none, never a part.
    static func write(_ conversion: SubtitleConversion, to path: String, directory: String) throws -> Outcome {
        let text: String
        do {
            text =
                conversion.srt
                ? try TitleSubtitles.srt(language: conversion.language, inTitleFolder: directory)
                : try TitleSubtitles.webVTT(language: conversion.language, inTitleFolder: directory)
        } catch {
            return .notConverted("the '\(conversion.language)' subtitles cannot be converted: \(error)")
        }
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = path + ".part-\(UUID().uuidString.prefix(8))"
        let data = Data(text.utf8)
        guard FileManager.default.createFile(atPath: temporary, contents: data) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary])
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
        try handle.synchronize()
        try handle.close()
        guard rename(temporary, path) == 0 else {
            let why = String(cString: strerror(errno))
            unlink(temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, "reason": why])
        }
        return .written(bytes: data.count)
    }
}
