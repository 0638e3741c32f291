import Foundation

/// Generates a small multi-variant HLS sample title with ffmpeg: three H.264 video variants
/// (360p, 480p, 720p) sharing one AAC audio rendition, in MPEG-TS segments.
public enum SampleTitle {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes `master.m3u8` and `v0…v3/` into `directory`. Needs `ffmpeg` on PATH.
    public static func generate(into directory: URL, seconds: Int = 12, segmentSeconds: Int = 2) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let dir = directory.path
        let fps = 25
        let arguments = [
            "-v", "error", "-y",
            "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=\(fps)",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-t", "\(seconds)",
            "-filter_complex", "[0:v]split=3[a][b][c];[a]scale=640:360[v0];[b]scale=854:480[v1];[c]scale=1280:720[v2]",
            "-map", "[v0]", "-map", "[v1]", "-map", "[v2]", "-map", "1:a",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
            "-g", "\(fps * segmentSeconds)", "-keyint_min", "\(fps * segmentSeconds)", "-sc_threshold", "0",
            "-b:v:0", "400k", "-b:v:1", "800k", "-b:v:2", "1600k",
            "-c:a", "aac", "-b:a", "96k",
            "-f", "hls", "-hls_time", "\(segmentSeconds)", "-hls_playlist_type", "vod",
            "-hls_segment_filename", "\(dir)/v%v/seg%03d.ts",
            "-master_pl_name", "master.m3u8",
            "-var_stream_map",
            "v:0,agroup:aud,name:360p v:1,agroup:aud,name:480p v:2,agroup:aud,name:720p a:0,agroup:aud,"
                + "language:en,name:English,default:yes",
            "\(dir)/v%v/index.m3u8",
        ]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg"] + arguments
        let errors = Pipe()
        process.standardError = errors
        do { try process.run() } catch {
            throw Failure(description: "cannot run ffmpeg (install it: apt-get install ffmpeg): \(error)")
        }
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description:
                    "ffmpeg failed (\(process.terminationStatus)):"
                    + " \(String(decoding: output, as: UTF8.self).prefix(2000))"
            )
        }
    }
}
