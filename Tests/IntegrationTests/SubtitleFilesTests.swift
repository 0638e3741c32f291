import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Subtitles a person can read (#44 item 2): every kept subtitle track — HLS segmented WebVTT (ffmpeg), DASH `wvtt`
/// and `stpp` in fMP4 and a TTML sidecar (Shaka Packager) — is written as `subtitles/<lang>.vtt` and `.srt` when the
/// title completes, cue for cue equal to the source's cues, hashed and verified with the title's files, and served
/// by the gateway; a malformed subtitle sample leaves the video title complete, naming the file.
@Suite("Subtitle files", .serialized)
struct SubtitleFilesTests {
    /// The source's cues (times in milliseconds, text) for `source.vtt` below, and as SRT text.
    static let source = """
        WEBVTT

        00:00:00.500 --> 00:00:01.800
        Hello &amp; <i>welcome</i>

        00:00:02.000 --> 00:00:03.250 align:start
        Second line
        two lines

        00:00:03.500 --> 00:00:03.900
        Last <c.yellow>one</c>

        """
    static let sourceCues = [
        Cue(500, 1800, "Hello &amp; <i>welcome</i>"), Cue(2000, 3250, "Second line\ntwo lines"),
        Cue(3500, 3900, "Last <c.yellow>one</c>"),
    ]
    static let sourceSRT = [
        Cue(500, 1800, "Hello & <i>welcome</i>"), Cue(2000, 3250, "Second line\ntwo lines"),
        Cue(3500, 3900, "Last one"),
    ]

    /// A TTML sidecar with styling (a `<span>` styled yellow) and a `<br/>`.
    static let ttml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <tt xmlns="http://www.w3.org/ns/ttml" xmlns:tts="http://www.w3.org/ns/ttml#styling" xml:lang="en">
        <head><styling><style xml:id="y" tts:color="yellow"/></styling></head>
        <body><div>
        <p begin="00:00:00.500" end="00:00:01.800">Hello &amp; <span style="y">welcome</span></p>
        <p begin="00:00:02.000" end="00:00:03.250">Second line<br/>two lines</p>
        <p begin="3.5s" end="3.9s">Last one</p>
        </div></body></tt>

        """

    @Test func hlsSegmentedWebVTT() throws {
        let h = try Self.harness("subs-hls")
        try Data(Self.source.utf8).write(to: h.media.appendingPathComponent("source.vtt"))
        _ = try TestMedia.sh(
            """
            mkdir -p video subs-de
            ffmpeg -nostdin -v error -y -f lavfi -i testsrc=size=160x120:rate=25 -t 4 -c:v libx264 -preset ultrafast \
              -g 25 -sc_threshold 0 -f hls -hls_time 1 -hls_playlist_type vod \
              -hls_segment_filename 'video/seg%03d.ts' video/index.m3u8
            ffmpeg -nostdin -v error -y -i source.vtt -c:s webvtt -f segment -segment_time 1 -segment_list_type m3u8 \
              -segment_list subs-de/index.m3u8 -segment_format webvtt 'subs-de/part%d.vtt'
            printf '#EXTM3U\\n#EXT-X-VERSION:3\\n\
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Deutsch",LANGUAGE="de",URI="subs-de/index.m3u8"\\n\
            #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=160x120,CODECS="avc1.64000c",SUBTITLES="subs"\\n\
            video/index.m3u8\\n' > master.m3u8
            """, in: h.media)
        let segments = try FileManager.default.contentsOfDirectory(
            atPath: h.media.appendingPathComponent("subs-de").path)
        #expect(segments.filter { $0.hasSuffix(".vtt") }.count == 3, "ffmpeg wrote one segment a cue: \(segments)")
        try h.startOrigin()
        try h.startPipeline()
        let token = try h.submit("master.m3u8", ["--subtitles", "all"])
        let status = try h.waitForFinal(token)
        #expect(status.state == .completed && status.playableOffline, "\(String(describing: status.error))")
        // The source is what ffmpeg wrote (it decodes `&amp;` and drops the class span): the origin's segments'
        // cues, read here.
        var source: [Cue] = []
        for n in 0..<3 {
            let part = try String(contentsOf: h.media.appendingPathComponent("subs-de/part\(n).vtt"), encoding: .utf8)
            source += Self.cues(part)
        }
        #expect(source.map(\.start) == [500, 2000, 3500] && source.last?.text == "Last one", "\(source)")
        try Self.expectFiles(h, token: token, language: "de", vtt: source, srt: Self.sourceSRT, status: status)

        // Hashed and verified like every other file: one changed at rest is found by `verify`, and `--repair`
        // writes it again (it is never fetched: it has no URL).
        let srt = h.home.appendingPathComponent("titles/\(token)/subtitles/de.srt")
        let written = try Data(contentsOf: srt)
        try Data("1\n00:00:00,000 --> 00:00:09,000\nforged\n\n".utf8).write(to: srt)
        let (found, report) = try h.stowctl(["verify", token])
        #expect(found == 1 && report.contains("subtitles/de.srt"), "verify fails naming the file: \(report)")
        let checked = try h.waitForFinal(token)
        #expect(
            checked.error?.code == .integrity && checked.error?.message.contains("subtitles/de.srt") == true,
            "\(String(describing: checked.error))")
        #expect(try h.stowctl(["verify", token, "--repair"]).0 == 0)
        var repaired = try h.waitForFinal(token)
        try h.waitUntil(timeout: 60, "the repaired title to complete clean") {
            repaired = try h.status(token)
            return repaired.state == .completed && repaired.error == nil
        }
        #expect(try Data(contentsOf: srt) == written, "written again from the subtitle segments")
        #expect(h.originRequests(containing: "subtitles/") == 0, "never asked of the origin")
    }

    @Test func hlsWvttInFragmentedMP4() throws {
        let h = try Self.harness("subs-hls-wvtt")
        try Data(Self.source.utf8).write(to: h.media.appendingPathComponent("source.vtt"))
        let input = try ShakaPackager.input(h.root.appendingPathComponent("input"))
        _ = try TestMedia.sh(
            "'\(try ShakaPackager.binary())' 'in=\(input.path),stream=video,init_segment=v/init.mp4,"
                + "segment_template=v/$Number$.m4s,playlist_name=v.m3u8' 'in=source.vtt,stream=text,language=en,"
                + "format=mp4,init_segment=t/init.mp4,segment_template=t/$Number$.m4s,playlist_name=t.m3u8,"
                + "hls_group_id=subs,hls_name=English' --segment_duration 1 --hls_master_playlist_output master.m3u8 "
                + "2>packager.log", in: h.media)
        let playlist = try String(contentsOf: h.media.appendingPathComponent("t.m3u8"), encoding: .utf8)
        #expect(playlist.contains("#EXT-X-MAP:URI=\"t/init.mp4\""), "\(playlist)")
        try h.startOrigin()
        try h.startPipeline()
        let token = try h.submit("master.m3u8", ["--subtitles", "all"])
        let status = try h.waitForFinal(token)
        #expect(status.state == .completed && status.playableOffline, "\(String(describing: status.error))")
        try Self.expectFiles(h, token: token, language: "en", vtt: Self.sourceCues, srt: Self.sourceSRT, status: status)
    }

    @Test(arguments: ["wvtt", "stpp"])
    func dashSubtitlesInFragmentedMP4(format: String) throws {
        let h = try Self.harness("subs-\(format)")
        try Data(Self.source.utf8).write(to: h.media.appendingPathComponent("source.vtt"))
        let input = try ShakaPackager.input(h.root.appendingPathComponent("input"))
        // wvtt: the WebVTT cues as they are; stpp: Shaka Packager writes each cue's text as TTML text (the markup
        // escaped, so it reads back as the same characters).
        _ = try TestMedia.sh(
            "'\(try ShakaPackager.binary())' in=\(input.path),stream=video,init_segment=v/init.mp4,"
                + "segment_template='v/$Number$.m4s' in=source.vtt,stream=text,language=en,"
                + "format=\(format == "wvtt" ? "mp4" : "ttml+mp4"),init_segment=t/init.mp4,"
                + "segment_template='t/$Number$.m4s' --segment_duration 1 --generate_static_live_mpd "
                + "--mpd_output manifest.mpd 2>packager.log", in: h.media)
        let mpd = try String(contentsOf: h.media.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        #expect(mpd.contains("codecs=\"\(format)\""), "\(mpd)")
        try h.startOrigin()
        try h.startPipeline()
        let token = try h.submit("manifest.mpd", ["--subtitles", "all"])
        let status = try h.waitForFinal(token)
        #expect(status.state == .completed && status.playableOffline, "\(String(describing: status.error))")
        let vtt =
            format == "wvtt"
            ? Self.sourceCues
            : Self.sourceCues.map {
                Cue(
                    $0.start, $0.end,
                    $0.text.replacingOccurrences(of: "&", with: "&amp;")
                        .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;"))
            }
        let srt =
            format == "wvtt"
            ? Self.sourceSRT
            : Self.sourceCues.map { Cue($0.start, $0.end, $0.text) }
        try Self.expectFiles(h, token: token, language: "en", vtt: vtt, srt: srt, status: status)
    }

    @Test func dashTTMLSidecar() throws {
        let h = try Self.harness("subs-ttml")
        try Data(Self.ttml.utf8).write(to: h.media.appendingPathComponent("en.ttml"))
        let input = try ShakaPackager.input(h.root.appendingPathComponent("input"))
        _ = try TestMedia.sh(
            "'\(try ShakaPackager.binary())' in=\(input.path),stream=video,output=video.mp4 "
                + "in=en.ttml,stream=text,language=fr,output=fr.ttml --mpd_output manifest.mpd 2>packager.log",
            in: h.media)
        let mpd = try String(contentsOf: h.media.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        #expect(mpd.contains("application/ttml+xml") && mpd.contains("<BaseURL>fr.ttml</BaseURL>"), "\(mpd)")
        try h.startOrigin()
        try h.startPipeline()
        let token = try h.submit("manifest.mpd", ["--subtitles", "all"])
        let status = try h.waitForFinal(token)
        #expect(status.state == .completed && status.playableOffline, "\(String(describing: status.error))")
        let cues = [
            Cue(500, 1800, "Hello &amp; welcome"), Cue(2000, 3250, "Second line\ntwo lines"),
            Cue(3500, 3900, "Last one"),
        ]
        let srt = cues.map { Cue($0.start, $0.end, $0.text.replacingOccurrences(of: "&amp;", with: "&")) }
        try Self.expectFiles(h, token: token, language: "fr", vtt: cues, srt: srt, status: status)
    }

    @Test func aMalformedSampleLeavesTheTitleCompleteAndNamesTheFile() throws {
        let h = try Self.harness("subs-bad")
        try Data(Self.source.utf8).write(to: h.media.appendingPathComponent("source.vtt"))
        let input = try ShakaPackager.input(h.root.appendingPathComponent("input"))
        _ = try TestMedia.sh(
            "'\(try ShakaPackager.binary())' in=\(input.path),stream=video,init_segment=v/init.mp4,"
                + "segment_template='v/$Number$.m4s' in=source.vtt,stream=text,language=en,format=mp4,"
                + "init_segment=t/init.mp4,segment_template='t/$Number$.m4s' --segment_duration 1 "
                + "--generate_static_live_mpd --mpd_output manifest.mpd 2>packager.log", in: h.media)
        // Segment 3's first cue: its payl box claims more bytes than its vttc holds (the moof and mdat are intact,
        // so the file passes the container check of fetched files).
        let third = h.media.appendingPathComponent("t/3.m4s")
        var bytes = [UInt8](try Data(contentsOf: third))
        let payl = try #require(
            bytes.indices.first { Array(bytes[$0..<min($0 + 4, bytes.count)]) == Array("payl".utf8) })
        bytes[payl - 1] = 0xF0
        try Data(bytes).write(to: third)
        try h.startOrigin()
        try h.startPipeline()
        let token = try h.submit("manifest.mpd", ["--subtitles", "all"])
        let status = try h.waitForFinal(token)
        #expect(
            status.state == .completed && status.playableOffline && status.error == nil,
            "the video title completes: \(String(describing: status.error))")
        let files = try #require(status.subtitleFiles)
        #expect(files.map(\.file).sorted() == ["subtitles/en.srt", "subtitles/en.vtt"])
        for file in files {
            #expect(file.state == .notConverted, "\(file)")
            #expect(
                file.message?.contains("seg-00003.m4s") == true && file.message?.contains("payl") == true,
                "names the file and the box: \(file.message ?? "")")
        }
        let folder = h.home.appendingPathComponent("titles/\(token)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("subtitles/en.vtt").path))
        let gateway = try h.startGateway(address: "127.0.0.1")
        let secret = try h.addDevice("tv")
        let (_, answer) = try TestMedia.shOutput(
            "curl -s -w ' %{http_code}' -H 'Authorization: Bearer \(secret)' "
                + "\(gateway)/titles/\(token)/subtitles/en.srt",
            in: h.root)
        #expect(answer.hasSuffix(" 422") && answer.contains("seg-00003.m4s"), "\(answer)")
    }

    // MARK: checks

    /// A harness with its origin's media folder made.
    static func harness(_ name: String) throws -> Harness {
        let h = try Harness(name: name)
        try FileManager.default.createDirectory(at: h.media, withIntermediateDirectories: true)
        return h
    }

    /// A cue as a test compares it: milliseconds and text.
    struct Cue: Equatable, CustomStringConvertible {
        var start: Int
        var end: Int
        var text: String
        init(_ start: Int, _ end: Int, _ text: String) {
            self.start = start
            self.end = end
            self.text = text
        }
        var description: String { "\(start)–\(end) \(text.debugDescription)" }
    }

    /// The cues of a `.vtt` or `.srt` file, read here (not by the code under test): each block's timing line
    /// (`hh:mm:ss.mmm` or `hh:mm:ss,mmm`) and the lines after it.
    static func cues(_ text: String) -> [Cue] {
        var out: [Cue] = []
        for block in text.components(separatedBy: "\n\n") {
            let lines = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard let timing = lines.firstIndex(where: { $0.contains(" --> ") }) else { continue }
            let times = lines[timing].components(separatedBy: " --> ")
            // `hh:mm:ss.mmm` or `mm:ss.mmm` (WebVTT), `hh:mm:ss,mmm` (SRT); settings after a space.
            let millis = { (t: String) -> Int in
                let f = (t.split(separator: " ").first ?? "").replacingOccurrences(of: ",", with: ".")
                    .split(separator: ":").compactMap { Double($0) }
                return Int((f.reduce(0) { $0 * 60 + $1 } * 1000).rounded())
            }
            let text = lines[(timing + 1)...].filter { !$0.isEmpty }.joined(separator: "\n")
            out.append(Cue(millis(times[0]), millis(times[1]), text))
        }
        return out
    }

    /// `subtitles/<lang>.vtt` and `.srt` are in the title's folder with `vtt` and `srt` cue for cue, reported
    /// written in `status`, counted in its bytes, and the gateway serves those very bytes.
    static func expectFiles(
        _ h: Harness, token: String, language: String, vtt: [Cue], srt: [Cue], status: TitleStatus
    ) throws {
        let folder = h.home.appendingPathComponent("titles/\(token)")
        let vttFile = try String(
            contentsOf: folder.appendingPathComponent("subtitles/\(language).vtt"), encoding: .utf8)
        let srtFile = try String(
            contentsOf: folder.appendingPathComponent("subtitles/\(language).srt"), encoding: .utf8)
        #expect(vttFile.hasPrefix("WEBVTT\n"))
        #expect(cues(vttFile) == vtt, "\(vttFile)")
        #expect(cues(srtFile) == srt, "\(srtFile)")
        #expect(srtFile.hasPrefix("1\n00:00:00,"), "numbered, SRT times: \(srtFile)")
        let files = status.subtitleFiles ?? []
        #expect(
            files.map(\.file).sorted() == ["subtitles/\(language).srt", "subtitles/\(language).vtt"]
                && files.allSatisfy { $0.state == .written }, "\(files)")
        // Counted in the title's size: the bytes verified are every file of the folder but the offline playlists.
        let bytes = vttFile.utf8.count + srtFile.utf8.count
        #expect(status.bytesDownloaded >= Int64(bytes) && status.bytesExpected == status.bytesDownloaded)
        let gateway = try h.startGateway(address: "127.0.0.1", name: "gateway-\(language)")
        let secret = try h.addDevice("tv-\(language)")
        for (name, file) in [("vtt", vttFile), ("srt", srtFile)] {
            let (code, served) = try TestMedia.shOutput(
                "curl -sf -H 'Authorization: Bearer \(secret)' "
                    + "\(gateway)/titles/\(token)/subtitles/\(language).\(name)",
                in: h.root)
            #expect(code == 0 && served == file, "the gateway serves the written \(name)")
        }
        // The file itself is what is served (a NOTE added to it shows).
        let note = "\nNOTE served from the written file\n"
        let handle = try FileHandle(forWritingTo: folder.appendingPathComponent("subtitles/\(language).vtt"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(note.utf8))
        try handle.close()
        let (_, noted) = try TestMedia.shOutput(
            "curl -sf -H 'Authorization: Bearer \(secret)' \(gateway)/titles/\(token)/subtitles/\(language).vtt",
            in: h.root)
        #expect(noted == vttFile + note, "\(noted)")
        // Removed, the file is made again from the subtitle files on the fly, the same.
        try FileManager.default.removeItem(at: folder.appendingPathComponent("subtitles/\(language).vtt"))
        let (code, made) = try TestMedia.shOutput(
            "curl -sf -H 'Authorization: Bearer \(secret)' \(gateway)/titles/\(token)/subtitles/\(language).vtt",
            in: h.root)
        #expect(code == 0 && cues(made) == vtt, "\(made)")
    }
}
