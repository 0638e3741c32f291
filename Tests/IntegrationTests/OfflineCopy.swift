import Foundation
import StowageTestSupport
import Testing

/// Compares an offline copy with the origin's files, byte for byte, rendition by rendition.
enum OfflineCopy {
    /// The URI lines of a media playlist, in order.
    static func uris(_ playlist: URL) throws -> [String] {
        try String(contentsOf: playlist, encoding: .utf8).split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// For each local media playlist, finds the origin playlist it came from (matching `sources`) and
    /// checks every segment file is identical. Returns the number of files compared.
    static func compare(localMedia: URL, originMedia: URL) throws -> Int {
        let local = try uris(localMedia)
        let origin = try uris(originMedia)
        #expect(local.count == origin.count, "\(localMedia.path) has \(local.count) segments, origin \(origin.count)")
        var compared = 0
        for (l, o) in zip(local, origin) {
            let a = try Data(contentsOf: localMedia.deletingLastPathComponent().appendingPathComponent(l))
            let originName = String(o.split(separator: "?", maxSplits: 1)[0]).removingPercentEncoding ?? o
            let b = try Data(contentsOf: originMedia.deletingLastPathComponent().appendingPathComponent(originName))
            #expect(a == b, "\(l) differs from origin \(o)")
            compared += 1
        }
        return compared
    }

    /// `ffmpeg -map 0:<stream> -f framemd5` of a playlist, without comment lines. Throws, naming the playlist and
    /// quoting ffmpeg's stderr, unless ffmpeg exits 0 with at least one frame: two failed decodes never compare
    /// equal. (ffmpeg skips a segment it cannot fetch and still exits 0: comparing with the origin's frames
    /// catches that.)
    /// `copy` hashes the packets as stored (what subtitles need: framemd5 has no subtitle encoder).
    /// `extra`: input options before `-i` (`-cenc_decryption_key HEX`).
    static func framemd5(_ playlist: String, stream: String = "v", copy: Bool = false, extra: [String] = []) throws
        -> String
    {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // `-allowed_extensions` is the HLS reader's option (DASH and MP4 inputs refuse it).
        let isHLS = playlist.split(separator: "?").first?.hasSuffix(".m3u8") ?? false
        p.arguments =
            ["ffmpeg", "-nostdin", "-v", "error"] + (isHLS ? ["-allowed_extensions", "ALL"] : []) + extra
            + ["-protocol_whitelist", "file,http,tcp,crypto,data", "-i", playlist, "-map", "0:\(stream)"]
            + (copy ? ["-c", "copy"] : []) + ["-f", "framemd5", "-"]
        let run = try runCapturingStreams(p)
        let frames = run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
        guard run.status == 0, !frames.isEmpty else {
            throw HarnessError(
                "ffmpeg framemd5 of \(playlist) (stream \(stream)) exited \(run.status) with "
                    + "\(frames.count) frames; stderr: \(run.stderr.suffix(2_000))")
        }
        return frames.joined(separator: "\n")
    }
}
