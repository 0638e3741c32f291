import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Selection by what a device decodes, through the real processes: ffmpeg makes an AVC + HEVC ladder (the HEVC
/// variant the cheaper, so the default picks it) with one AAC stereo audio rendition and a master naming CODECS.
@Suite("Selection by codec and audio-only", .serialized)
struct CodecSelectionTests {
    /// `hevc/` (libx265) and `avc/` (libx264) video-only TS variants, `audio/` AAC stereo, a master naming CODECS.
    static func ladder(into dir: URL, seconds: Int = 6) throws {
        try TestMedia.sh(
            """
            mkdir -p avc hevc audio
            ffmpeg -v error -y -f lavfi -i testsrc2=size=640x360:rate=25 -t \(seconds) -c:v libx264 -preset ultrafast \
              -g 50 -sc_threshold 0 -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_filename 'avc/seg%03d.ts' \
              avc/index.m3u8
            ffmpeg -v error -y -f lavfi -i testsrc2=size=640x360:rate=25 -t \(seconds) -c:v libx265 -preset ultrafast \
              -x265-params log-level=error:keyint=50:min-keyint=50:scenecut=0 -f hls -hls_time 2 \
              -hls_playlist_type vod -hls_segment_filename 'hevc/seg%03d.ts' hevc/index.m3u8
            ffmpeg -v error -y -f lavfi -i sine=frequency=440:sample_rate=48000 -ac 2 -t \(seconds) -c:a aac -b:a 64k \
              -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_filename 'audio/seg%03d.ts' audio/index.m3u8
            printf '#EXTM3U\\n#EXT-X-VERSION:3\\n\
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,\
            CHANNELS="2",URI="audio/index.m3u8"\\n\
            #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=640x360,CODECS="hvc1.1.6.L90.B0,mp4a.40.2",AUDIO="aud"\\n\
            hevc/index.m3u8\\n\
            #EXT-X-STREAM-INF:BANDWIDTH=600000,RESOLUTION=640x360,CODECS="avc1.64001e,mp4a.40.2",AUDIO="aud"\\n\
            avc/index.m3u8\\n' > master.m3u8
            """, in: dir)
    }

    /// The codec names (`h264`, `hevc`, `aac`) ffprobe finds in every stream of every `.ts` file of a copy.
    static func codecs(ofCopy playlist: String, in h: Harness) throws -> [String: [String]] {
        let folder = URL(fileURLWithPath: playlist).deletingLastPathComponent()
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".ts") }
        var out: [String: [String]] = [:]
        for file in files {
            let (status, text) = try TestMedia.shOutput(
                "ffprobe -v error -show_entries stream=codec_type,codec_name -of csv=p=0 '\(folder.path)/\(file)'",
                in: h.root)
            #expect(status == 0, "ffprobe \(file): \(text)")
            // A TS stream is listed once per program it is in as well: each codec once.
            out[file] = Array(Set(text.split(separator: "\n").map { String($0) })).sorted()
        }
        return out
    }

    @Test func videoCodecAvcNeverFetchesHEVCAndAudioOnlyStoresNoVideo() throws {
        let h = try Harness(name: "codec-select")
        for name in ["title", "radio", "none"] { try Self.ladder(into: h.media.appendingPathComponent(name)) }
        try h.startOrigin()
        try h.startPipeline()

        // `variants` shows what each rendition needs a device to decode.
        let (listed, text) = try h.stowctl(["variants", h.originURL + "title/master.m3u8", "--json"])
        #expect(listed == 0, "\(text)")
        let report = try JSONDecoder().decode(VariantsReport.self, from: Data(text.utf8))
        #expect(report.variants.map(\.videoCodec) == ["hevc", "avc"])
        #expect(report.variants.map(\.videoRange) == ["sdr", "sdr"])
        #expect(report.renditions.first?.channels == 2 && report.renditions.first?.audioCodec == "aac")

        let token = try h.submit("title/master.m3u8", ["--video-codec", "avc"])
        let status = try h.waitForFinal(token)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        #expect(h.originRequests(containing: "/title/hevc/") == 0, "not even its playlist")
        #expect(h.originRequests(containing: "/title/avc/seg") == 3)
        let stored = try Self.codecs(ofCopy: try #require(status.localPlaylist), in: h)
        #expect(stored.values.filter { $0 == ["h264,video"] }.count == 3, "3 AVC video segments: \(stored)")
        #expect(stored.values.allSatisfy { $0 == ["h264,video"] || $0 == ["aac,audio"] }, "no HEVC: \(stored)")

        // The same URL with another codec is refused, naming the option; without options it is the same title.
        let again = try h.stowctlStreams(["submit", h.originURL + "title/master.m3u8", "--video-codec", "hevc"])
        #expect(again.status == 1 && again.stderr.contains("--video-codec hevc, not avc"), "\(again.stderr)")
        let same = try h.stowctlStreams(["submit", h.originURL + "title/master.m3u8", "--video-codec", "avc"])
        #expect(same.status == 0 && same.stdout.hasSuffix("\(token)\n"), "\(same)")

        let radio = try h.waitForFinal(try h.submit("radio/master.m3u8", ["--audio-only"]))
        #expect(radio.state == .completed, "\(String(describing: radio.error))")
        #expect(h.originRequests(containing: "/radio/avc/") + h.originRequests(containing: "/radio/hevc/") == 0)
        let audio = try Self.codecs(ofCopy: try #require(radio.localPlaylist), in: h)
        #expect(audio.count >= 3, "\(audio)")
        #expect(audio.values.allSatisfy { $0 == ["aac,audio"] }, "no video stream in any stored file: \(audio)")
        let master = try String(contentsOfFile: try #require(radio.localPlaylist), encoding: .utf8)
        #expect(!master.contains("RESOLUTION") && !master.contains("hvc1") && !master.contains("avc1"), "\(master)")

        // Nothing on offer satisfies AV1: refused naming what is.
        let none = try h.waitForFinal(try h.submit("none/master.m3u8", ["--video-codec", "av1"]))
        #expect(none.state == .failed)
        let message = none.error?.message ?? ""
        #expect(
            message.contains("--video-codec av1") && message.contains("hevc sdr 640x360, avc sdr 640x360"), "\(message)"
        )
        #expect(h.originRequests(containing: "/none/hevc/") + h.originRequests(containing: "/none/avc/") == 0)
    }

    /// The streams (`h264,video`, `aac,audio` …) ffprobe reads from an offline copy's local MPD.
    static func streams(ofMPD path: String, in h: Harness) throws -> [String] {
        let (status, text) = try TestMedia.shOutput(
            "ffprobe -v error -show_entries stream=codec_name,codec_type -of csv=p=0 '\(path)'", in: h.root)
        #expect(status == 0, "ffprobe \(path): \(text)")
        return Array(Set(text.split(separator: "\n").map { String($0) })).sorted()
    }

    /// The same for DASH: ffmpeg's `dash` muxer writes an HEVC (`hvc1`, stream 0), an AVC (stream 1) and an AAC
    /// stereo (stream 2) AdaptationSet.
    @Test func dashVideoCodecAndAudioOnly() throws {
        let h = try Harness(name: "codec-select-dash")
        for name in ["film", "lesson"] {
            try TestMedia.sh(
                """
                timeout 300 ffmpeg -nostdin -v error -y \(DASHMedia.source) -t 6 -map 0:v -map 0:v -map 1:a \
                  -c:v:0 libx265 -preset ultrafast -x265-params log-level=error:keyint=50:min-keyint=50:scenecut=0 \
                  -tag:v:0 hvc1 -b:v:0 200k -c:v:1 libx264 -preset ultrafast -g 50 -sc_threshold 0 -b:v:1 500k \
                  -c:a aac -ac 2 -b:a 64k -f dash -seg_duration 2 -use_template 1 -use_timeline 0 \
                  -adaptation_sets "id=0,streams=0 id=1,streams=1 id=2,streams=2" manifest.mpd
                """, in: h.media.appendingPathComponent(name))
        }
        try h.startOrigin()
        try h.startPipeline()

        let film = try h.waitForFinal(try h.submit("film/manifest.mpd", ["--video-codec", "avc", "--channels", "2"]))
        #expect(film.state == .completed, "\(String(describing: film.error))")
        #expect(
            h.originRequests(containing: "/film/init-stream0") + h.originRequests(containing: "/film/chunk-stream0")
                == 0)
        #expect(h.originRequests(containing: "/film/chunk-stream1-") == 3)
        #expect(try Self.streams(ofMPD: try #require(film.localPlaylist), in: h) == ["aac,audio", "h264,video"])

        let lesson = try h.waitForFinal(try h.submit("lesson/manifest.mpd", ["--audio-only"]))
        #expect(lesson.state == .completed, "\(String(describing: lesson.error))")
        let video = ["init-stream0", "chunk-stream0", "init-stream1", "chunk-stream1"]
        #expect(video.map { h.originRequests(containing: "/lesson/\($0)") }.reduce(0, +) == 0, "no video fetched")
        #expect(h.originRequests(containing: "/lesson/chunk-stream2-") >= 3, "the audio is")
        #expect(try Self.streams(ofMPD: try #require(lesson.localPlaylist), in: h) == ["aac,audio"])
    }
}
