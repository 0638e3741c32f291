import Foundation
import StowageProtocol

/// What ffprobe reads of an offline copy's entry (its HLS master or local MPD): the duration (for progress) and the
/// audio streams in the order ffmpeg maps them, each with the language its rendition was stored with.
struct MediaProbe {
    var duration: Double?
    /// The video streams' indexes (not attached pictures), in ffmpeg's order.
    var video: [Int]
    /// The audio streams in ffmpeg's order: index, and the stored rendition's language tag (nil when it has none).
    var audio: [(index: Int, language: String?)]

    private struct Output: Decodable {
        struct Stream: Decodable {
            var index: Int
            var codec_type: String?
            var tags: [String: String]?
            var disposition: [String: Int]?
        }
        struct Format: Decodable { var duration: String? }
        var streams: [Stream]?
        var format: Format?
    }

    /// Probes `entry` with `inputOptions` (the same the mux is given).
    static func probe(_ entry: String, inputOptions: [String]) throws(RemuxError) -> MediaProbe {
        var json = ""
        let run = try ToolProcess(
            tool: "ffprobe",
            arguments: ["-v", "error"] + inputOptions + [
                "-show_entries",
                "format=duration:stream=index,codec_type:stream_tags=language:stream_disposition=attached_pic",
                "-of", "json", "-i", entry,
            ]
        ).run { json += $0 + "\n" }
        guard run.status == 0, let output = try? JSONDecoder().decode(Output.self, from: Data(json.utf8)) else {
            throw RemuxError(
                .integrity, "ffprobe cannot read the offline copy \(entry): \(lastLine(run.stderr) ?? "no output")")
        }
        let streams = output.streams ?? []
        return MediaProbe(
            duration: output.format?.duration.flatMap(Double.init).flatMap { $0.isFinite && $0 > 0 ? $0 : nil },
            video: streams.filter { $0.codec_type == "video" && $0.disposition?["attached_pic"] != 1 }.map(\.index),
            audio: streams.filter { $0.codec_type == "audio" }.map { ($0.index, $0.tags?["language"]) })
    }

    /// The last non-empty line of a tool's messages.
    static func lastLine(_ text: String) -> String? {
        text.split(separator: "\n").last(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }).map(String.init)
    }
}
