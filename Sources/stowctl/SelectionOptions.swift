import ArgumentParser
import Foundation
import StowageProtocol

/// `--bitrate`, `--max-height`, `--audio`, `--subtitles`, `--iframes` and `--header`: which renditions, and how to ask.
struct SelectionOptions: ParsableArguments {
    @Option(help: "Highest variant bandwidth (bits/s) to accept (default: the lowest variant with video).")
    var bitrate: Int?
    @Option(name: .customLong("max-height"), help: "Ignore variants taller than this many pixels.")
    var maxHeight: Int?
    @Option(help: "Audio languages, comma-separated (default: the DEFAULT rendition).")
    var audio: String?
    @Option(help: "Subtitle languages, comma-separated, or 'all' or 'none' (default: none).")
    var subtitles: String?
    @Flag(
        help: "Keep the video's I-frame playlist for scrubbing (ranges in kept segments cost nothing; default: drop).")
    var iframes = false
    @Option(name: .customLong("header"), help: "An HTTP header for every request, 'Name: value' (repeatable).")
    var headers: [String] = []

    func validate() throws {
        for h in headers where Header(parsing: h) == nil {
            throw ValidationError("--header '\(h)' is not 'Name: value'")
        }
        if let bitrate, bitrate <= 0 { throw ValidationError("--bitrate must be positive") }
        if let maxHeight, maxHeight <= 0 { throw ValidationError("--max-height must be positive") }
        do { try selection.checkNumbers() } catch { throw ValidationError("--\(error)") }
    }

    var selection: Selection {
        let list = { (s: String?) in
            s.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        }
        return Selection(
            bitrate: bitrate, maxHeight: maxHeight, audio: list(audio), subtitles: list(subtitles),
            iframes: iframes ? true : nil)
    }

    var parsedHeaders: [Header] { headers.compactMap(Header.init(parsing:)) }
}
