import Foundation
import StowageSubtitles

/// The real files in `Fixtures/` (see its README for how each was made) and the cues their sources hold.
enum Fixture {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
    }
    static func text(_ path: String) throws -> String { String(decoding: try bytes(path), as: UTF8.self) }

    /// The cues of `plain.vtt` (the source of `stpp/` and `hls/`), as times and text.
    static let plainCues: [Timed] = [
        Timed(0.5, 1.8, "Hello and welcome"), Timed(2.0, 3.25, "Second line\ntwo lines"), Timed(3.5, 3.9, "Last"),
    ]

    /// A cue's times (whole milliseconds) and text: what "cue for cue equal" compares.
    struct Timed: Equatable, CustomStringConvertible {
        var start: Int
        var end: Int
        var text: String
        init(_ start: Double, _ end: Double, _ text: String) {
            self.start = Int((start * 1000).rounded())
            self.end = Int((end * 1000).rounded())
            self.text = text
        }
        init(_ cue: SubtitleCue) { self.init(cue.start, cue.end, cue.text) }
        var description: String { "\(start)–\(end) \(text.debugDescription)" }
    }

    /// A fresh folder holding copies of `files` (fixture path → path in the folder).
    static func folder(_ files: [String: String], extra: [String: String] = [:]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("subs-\(UUID().uuidString)")
        for (from, to) in files {
            let target = dir.appendingPathComponent(to)
            try FileManager.default.createDirectory(
                at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(try bytes(from)).write(to: target)
        }
        for (path, text) in extra {
            let target = dir.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: target)
        }
        return dir.path
    }

    /// A local MPD (as the scheduler writes one) with one text AdaptationSet in `lang`: a SegmentTemplate over
    /// `folder/init.mp4` and `folder/$Number$.m4s` (four one-second segments), or a sidecar `BaseURL`.
    static func mpd(
        textFolder folder: String?, sidecar: String? = nil, mime: String, codecs: String?, lang: String,
        periodStart: String = "PT0S"
    ) -> String {
        let codecsAttribute = codecs.map { " codecs=\"\($0)\"" } ?? ""
        let body: String
        if let folder {
            body = """
                <SegmentTemplate timescale="1000" initialization="\(folder)/init.mp4" media="\(folder)/$Number$.m4s" \
                startNumber="1"><SegmentTimeline><S t="0" d="1000" r="3"/></SegmentTimeline></SegmentTemplate>
                """
        } else {
            body = "<BaseURL>\(sidecar ?? "")</BaseURL>"
        }
        return """
            <?xml version="1.0" encoding="utf-8"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT4S" \
            minBufferTime="PT2S" profiles="urn:mpeg:dash:profile:isoff-live:2011">
              <Period id="p0" start="\(periodStart)" duration="PT4S">
                <AdaptationSet id="0" contentType="text" mimeType="\(mime)" lang="\(lang)">
                  <Representation id="t" bandwidth="1000"\(codecsAttribute)>\(body)</Representation>
                </AdaptationSet>
              </Period>
            </MPD>
            """
    }
}
