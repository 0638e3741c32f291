import ArgumentParser
import Foundation
import StowageProtocol

/// `--bitrate`, `--max-height`, `--audio`, `--subtitles`, `--iframes`, what the device decodes (`--video-codec`,
/// `--video-range`, `--audio-codec`, `--channels`, `--audio-only`) and `--header`: which renditions, and how to ask.
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
        help: "Keep the video's I-frame playlist (HLS) or trick-mode set (DASH) for scrubbing (default: drop).")
    var iframes = false
    @Option(
        name: .customLong("video-codec"),
        help: "Video codecs the device decodes, most preferred first: avc, hevc, av1 (comma-separated; default: any).")
    var videoCodec: String?
    @Option(name: .customLong("video-range"), help: "The video range the device shows: sdr, hlg or pq (default: any).")
    var videoRange: String?
    @Option(
        name: .customLong("audio-codec"),
        help: "Audio codecs the device decodes, most preferred first: aac, ac-3, ec-3 (comma-separated; default: any).")
    var audioCodec: String?
    @Option(help: "At most this many audio channels (2 = stereo; undeclared audio counts as 2; default: any).")
    var channels: Int?
    @Flag(
        name: .customLong("audio-only"),
        help: "No video: an audio-only variant or audio rendition (HLS), only audio AdaptationSets (DASH).")
    var audioOnly = false
    @Option(name: .customLong("header"), help: "An HTTP header for every request, 'Name: value' (repeatable).")
    var headers: [String] = []

    func validate() throws {
        for h in headers where Header(parsing: h) == nil {
            throw ValidationError("--header '\(h)' is not 'Name: value'")
        }
        if let bitrate, bitrate <= 0 { throw ValidationError("--bitrate must be positive") }
        if let maxHeight, maxHeight <= 0 { throw ValidationError("--max-height must be positive") }
        if let channels, channels <= 0 { throw ValidationError("--channels must be positive") }
        do { _ = try decoding() } catch { throw ValidationError("\(error)") }
        do { try selection.checkNumbers() } catch { throw ValidationError("--\(error)") }
    }

    /// The decoding options parsed: codec families in the order given, the range.
    private func decoding() throws(SelectionError) -> (video: [CodecFamily]?, range: VideoRange?, audio: [CodecFamily]?)
    {
        (
            try videoCodec.map { v throws(SelectionError) in
                try CodecFamily.parseList(v, video: true, option: "--video-codec")
            },
            try videoRange.map { v throws(SelectionError) in try VideoRange.parse(v, option: "--video-range") },
            try audioCodec.map { v throws(SelectionError) in
                try CodecFamily.parseList(v, video: false, option: "--audio-codec")
            }
        )
    }

    var selection: Selection {
        let list = { (s: String?) in
            s.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        }
        // validate() has refused a bad value already.
        let parsed: (video: [CodecFamily]?, range: VideoRange?, audio: [CodecFamily]?) =
            (try? decoding()) ?? (nil, nil, nil)
        return Selection(
            bitrate: bitrate, maxHeight: maxHeight, audio: list(audio), subtitles: list(subtitles),
            iframes: iframes ? true : nil, videoCodec: parsed.video, videoRange: parsed.range,
            audioCodec: parsed.audio, channels: channels, audioOnly: audioOnly ? true : nil)
    }

    var parsedHeaders: [Header] { headers.compactMap(Header.init(parsing:)) }
}
