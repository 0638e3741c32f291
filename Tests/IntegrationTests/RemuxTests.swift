import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// `stowctl remux TOKEN OUT.mp4|OUT.mkv`: a completed title written as one file by the real processes, from real
/// ffmpeg media. The file's video frames and audio samples equal the offline copy's (`framemd5`, decoded), every
/// audio language and subtitle language is in it with its language tag, the MP4's index comes first, it has no
/// chapters, and GStreamer and mpv play it through. HLS and DASH alike. A protected or rented title is refused,
/// naming why, and nothing is written.
@Suite("Remux", .serialized)
struct RemuxTests {
    func start(_ name: String, _ make: (URL) throws -> Void) throws -> Harness {
        let h = try Harness(name: name)
        try make(h.media)
        try h.startOrigin()
        try h.startPipeline()
        return h
    }

    /// The decoded frames' hashes of one stream of `path` (a playlist, an MPD or a file).
    static func frames(_ path: String, _ stream: String) throws -> [String] {
        DASHMedia.hashes(try OfflineCopy.framemd5(path, stream: stream))
    }

    /// `ffprobe`'s `codec_type:language` for each stream of `file`, in order.
    static func streams(_ file: String, in dir: URL) throws -> [String] {
        let (code, out) = try TestMedia.shOutput(
            "ffprobe -v error -show_entries stream=codec_type,codec_name:stream_tags=language -of csv=p=0 '\(file)'",
            in: dir)
        #expect(code == 0, "ffprobe \(file): \(out)")
        return out.split(separator: "\n").map(String.init)
    }

    /// GStreamer (`gst-discoverer-1.0`, then `playbin` to the end into fake sinks) and mpv play `file` through.
    static func playsThrough(_ file: String, in dir: URL) throws {
        let (discovered, about) = try TestMedia.shOutput("gst-discoverer-1.0 '\(file)' 2>&1", in: dir)
        #expect(discovered == 0 && about.contains("Done discovering"), "gst-discoverer-1.0 \(file): \(about)")
        let (played, gstOut) = try TestMedia.shOutput(
            "timeout 120 gst-launch-1.0 -q playbin uri='file://\(file)' video-sink='fakesink sync=false' "
                + "audio-sink='fakesink sync=false' 2>&1", in: dir)
        #expect(played == 0, "gst-launch-1.0 playbin \(file): \(gstOut)")
        let (mpv, mpvOut) = try TestMedia.shOutput(
            "timeout 120 mpv --no-config --vo=null --ao=null --msg-level=all=error '\(file)' 2>&1", in: dir)
        #expect(mpv == 0 && mpvOut.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "mpv \(file): \(mpvOut)")
    }

    /// The cues of the `n`th subtitle stream of `file`, as ffmpeg reads them back (WebVTT text).
    static func cues(_ file: String, stream n: Int, in dir: URL) throws -> String {
        try TestMedia.sh("ffmpeg -nostdin -v error -i '\(file)' -map 0:s:\(n) -f webvtt -", in: dir)
    }

    @Test func anHLSTitleBecomesOneMP4AndOneMKVWithItsFramesAudioAndSubtitles() throws {
        let h = try start("remux-hls") {
            try TestMedia.multiLanguage(into: $0, seconds: 6)
            // A language whose first cue is not at 0: its times stay the presentation's in the file.
            try TestMedia.sh("sed -i 's/^00:00:00.000 --> /00:00:01.000 --> /' subs-fr/part0.vtt", in: $0)
        }
        let token = try h.submit("master.m3u8", ["--audio", "en,de", "--subtitles", "all", "--id", "lesson-1"])
        let status = try h.waitForFinal(token)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        let entry = try #require(status.localPlaylist)
        let video = try Self.frames(entry, "v")
        let english = try Self.frames(entry, "a:m:language:en")
        let german = try Self.frames(entry, "a:m:language:de")
        #expect(video.count == 150 && english != german, "6 s at 25 fps, two languages: \(video.count)")
        #expect(h.terminate("origin") == 0, "the file is made from the offline copy alone")

        for format in ["mp4", "mkv"] {
            let out = h.root.appendingPathComponent("title.\(format)").path
            // The MKV by the title's id (every command that takes a TOKEN takes --id).
            let title = format == "mp4" ? [token] : ["--id", "lesson-1"]
            let run = try h.stowctlStreams(["remux"] + title + [out, "--json"])
            #expect(run.status == 0, "remux \(format): \(run.stderr)")
            let report = try JSONDecoder().decode(RemuxAnswer.self, from: Data(run.stdout.utf8))
            #expect(report.path == out && report.audioLanguages.count == 2 && report.subtitleLanguages == ["en", "fr"])
            #expect(try Self.frames(out, "v") == video, "\(format): the video frames are the offline copy's")
            #expect(try Self.frames(out, "a:0") == english, "\(format): the English audio is the offline copy's")
            #expect(try Self.frames(out, "a:1") == german, "\(format): the German audio is the offline copy's")
            let streams = try Self.streams(out, in: h.root)
            let subtitle = format == "mp4" ? "mov_text" : "webvtt"
            #expect(
                streams.first?.hasPrefix("h264,video") == true
                    && Array(streams.dropFirst()) == [
                        "aac,audio,eng", "aac,audio,ger", "\(subtitle),subtitle,eng", "\(subtitle),subtitle,fre",
                    ], "\(format): every stream, tagged with its stored language (ISO 639-2): \(streams)")
            let english = try Self.cues(out, stream: 0, in: h.root)
            #expect(english.contains("00:00.000 --> 00:02.000\nline one en"), "\(format) English cues: \(english)")
            let french = try Self.cues(out, stream: 1, in: h.root)
            #expect(
                french.contains("00:01.000 --> 00:02.000\nline one fr")
                    && french.contains("00:03.000 --> 00:05.000\nline two fr"), "\(format) French cues: \(french)")
            let (_, chapters) = try TestMedia.shOutput(
                "ffprobe -v error -show_chapters -of csv=p=0 '\(out)'", in: h.root)
            #expect(chapters.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "no chapters: \(chapters)")
            try Self.playsThrough(out, in: h.root)
        }
        let boxes = try DASHMedia.topLevelBoxes(Data(contentsOf: h.root.appendingPathComponent("title.mp4")))
        let moov = try #require(boxes.firstIndex { $0.type == "moov" })
        let mdat = try #require(boxes.firstIndex { $0.type == "mdat" })
        #expect(moov < mdat, "the MP4's index comes first (+faststart): \(boxes.map(\.type))")
        #expect(
            !FileManager.default.fileExists(atPath: h.root.appendingPathComponent("title.mp4.part").path),
            "nothing half-written is left")
    }

    @Test func aDASHTitleBecomesOneMP4WithItsFrames() throws {
        let h = try start("remux-dash") { try DASHMedia.template(into: $0, timeline: true, seconds: 6) }
        let token = try h.submit("manifest.mpd")
        let status = try h.waitForFinal(token)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        let entry = try #require(status.localPlaylist)
        let video = try Self.frames(entry, "v")
        let audio = try Self.frames(entry, "a")
        #expect(video.count == 150, "6 s at 25 fps: \(video.count)")
        let out = h.root.appendingPathComponent("dash title.mp4").path
        let run = try h.stowctlStreams(["remux", token, out])
        #expect(run.status == 0 && run.stdout.trimmingCharacters(in: .newlines) == out, "remux: \(run.stderr)")
        #expect(run.stderr.contains("remux \(token)") && run.stderr.contains("/s  ETA "), "the bar: \(run.stderr)")
        #expect(try Self.frames(out, "v") == video, "the video frames are the offline copy's")
        #expect(try Self.frames(out, "a") == audio, "the audio is the offline copy's")
        try Self.playsThrough(out, in: h.root)
    }

    @Test func aProtectedOrRentedTitleIsRefusedNamingWhy() throws {
        let h = try start("remux-refused") {
            try TestMedia.aesExplicitIV(into: $0, seconds: 4)
            try TestMedia.fmp4(into: $0.appendingPathComponent("clear"), singleFile: false, seconds: 4)
        }
        let protected = try h.submit("index.m3u8")
        #expect(try h.waitForFinal(protected).state == .completed)
        let out = h.root.appendingPathComponent("refused.mp4").path
        let first = try h.stowctlStreams(["remux", protected, out])
        #expect(
            first.status == 1 && first.stderr.contains("one file would outlive its license")
                && first.stderr.contains("encrypted"), "\(first.stderr)")

        let rented = try h.submit("clear/index.m3u8", ["--rental", "24h", "--play-count", "3"])
        #expect(try h.waitForFinal(rented).state == .completed)
        let second = try h.stowctlStreams(["remux", rented, out, "--json"])
        #expect(second.status == 1, "\(second.stdout)")
        #expect(
            second.stdout.contains("\"code\"") && second.stdout.contains("refused")
                && second.stdout.contains("rental") && second.stdout.contains("number of plays"), "\(second.stdout)")
        #expect(!FileManager.default.fileExists(atPath: out), "nothing is written for a refused title")
        let usage = try h.stowctlStreams(["remux", rented, h.root.appendingPathComponent("x.avi").path])
        #expect(usage.status == 2 && usage.stderr.contains(".mp4 or .mkv"), "\(usage.stderr)")
    }
}

/// `stowctl remux --json`: what the tests read of it.
struct RemuxAnswer: Decodable {
    var path: String
    var bytes: Int64
    var audioLanguages: [String]
    var subtitleLanguages: [String]
}
