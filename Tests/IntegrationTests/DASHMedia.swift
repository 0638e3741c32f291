import Foundation
import StowageTestSupport

/// Real DASH made at test time by ffmpeg's `dash` muxer, and what it cannot make (SegmentBase MPDs, several
/// Periods and BaseURLs, DRM signalling) written by the tests from its output. Never committed.
enum DASHMedia {
    static let source = "-f lavfi -i testsrc2=size=640x360:rate=25 -f lavfi -i sine=frequency=440:sample_rate=48000"

    /// Two video Representations (320x180 at 200 kb/s, 640x360 at 800 kb/s) and one audio, as a SegmentTemplate
    /// with `$Number$`, with a SegmentTimeline or with `@duration` only. Files: `init-stream<N>.m4s`,
    /// `chunk-stream<N>-0000k.m4s` (N: 0 low video, 1 high video, 2 audio).
    static func template(into dir: URL, timeline: Bool, seconds: Int = 6) throws {
        try TestMedia.sh(
            """
            timeout 300 ffmpeg -nostdin -v error -y \(source) -t \(seconds) \
              -filter_complex "[0:v]split=2[a][b];[a]scale=320:180[v0];[b]scale=640:360[v1]" \
              -map "[v0]" -map "[v1]" -map 1:a -c:v libx264 -preset ultrafast -g 25 -sc_threshold 0 \
              -b:v:0 200k -b:v:1 800k -c:a aac -b:a 64k \
              -f dash -seg_duration 2 -use_template 1 -use_timeline \(timeline ? 1 : 0) \
              -adaptation_sets "id=0,streams=v id=1,streams=a" manifest.mpd
            """, in: dir)
    }

    /// One file per Representation (`single-stream0.mp4` video, `single-stream1.mp4` audio) with one global
    /// `sidx`, described by a hand-written SegmentBase MPD (`indexRange` on the `sidx`, `Initialization` on
    /// `ftyp`+`moov`): the segments are found only by reading the index.
    static func segmentBase(into dir: URL, seconds: Int = 6) throws {
        try TestMedia.sh(
            """
            timeout 300 ffmpeg -nostdin -v error -y \(source) -t \(seconds) -map 0:v -map 1:a \
              -c:v libx264 -preset ultrafast -g 25 -sc_threshold 0 -s 320x180 -c:a aac -b:a 64k \
              -f dash -seg_duration 2 -single_file 1 -global_sidx 1 \
              -adaptation_sets "id=0,streams=v id=1,streams=a" single.mpd
            """, in: dir)
        var sets = ""
        for (n, kind) in [(0, "video"), (1, "audio")] {
            let name = "single-stream\(n).mp4"
            let boxes = try topLevelBoxes(Data(contentsOf: dir.appendingPathComponent(name)))
            let sidx = try boxes.first { $0.type == "sidx" }.orThrow("\(name) has no sidx")
            let media =
                kind == "video"
                ? "mimeType=\"video/mp4\" codecs=\"avc1.42c00d\" width=\"320\" height=\"180\" bandwidth=\"300000\""
                : "mimeType=\"audio/mp4\" codecs=\"mp4a.40.2\" bandwidth=\"64000\""
            sets += """
                  <AdaptationSet contentType="\(kind)">
                    <Representation id="\(kind)" \(media)>
                      <BaseURL>\(name)</BaseURL>
                      <SegmentBase indexRange="\(sidx.offset)-\(sidx.offset + sidx.size - 1)">
                        <Initialization range="0-\(sidx.offset - 1)"/>
                      </SegmentBase>
                    </Representation>
                  </AdaptationSet>

                """
        }
        try mpd(duration: Double(seconds), periods: "  <Period id=\"0\" start=\"PT0S\">\n\(sets)  </Period>\n")
            .write(to: dir.appendingPathComponent("manifest.mpd"), atomically: true, encoding: .utf8)
    }

    /// A static MPD around `periods` (XML text), with optional MPD-level `BaseURL`s.
    static func mpd(duration: Double, periods: String, baseURLs: [String] = [], namespaces: String = "") -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011"\(namespaces) type="static" \
        profiles="urn:mpeg:dash:profile:isoff-on-demand:2011" mediaPresentationDuration="PT\(duration)S" \
        minBufferTime="PT2S">
        \(baseURLs.map { "  <BaseURL>\($0)</BaseURL>\n" }.joined())\(periods)</MPD>

        """
    }

    /// One top-level ISO BMFF box: its type, offset and size.
    struct Box {
        var type: String
        var offset: Int
        var size: Int
    }

    /// The top-level boxes of an MP4 file.
    static func topLevelBoxes(_ data: Data) throws -> [Box] {
        let bytes = [UInt8](data)
        var boxes: [Box] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard size >= 8, offset + size <= bytes.count else { throw HarnessError("bad box \(type) at \(offset)") }
            boxes.append(Box(type: type, offset: offset, size: size))
            offset += size
        }
        return boxes
    }

    /// The frames of one Representation as the packager wrote it: its initialization segment and media segments
    /// joined into one file, decoded (ffmpeg 5.1's DASH reader skips segments of some MPD forms: see NOTES).
    static func referenceFrames(_ dir: URL, files: [String], stream: String, name: String) throws -> String {
        let joined = dir.appendingPathComponent(name)
        var data = Data()
        for file in files { data.append(try Data(contentsOf: dir.appendingPathComponent(file))) }
        try data.write(to: joined)
        return try OfflineCopy.framemd5(joined.path, stream: stream)
    }

    /// The frames' hashes in order, without their timestamps: ffmpeg's DASH reader numbers the frames of an MPD
    /// from a different origin (pts + 1) than its MP4 reader does the same bytes.
    static func hashes(_ framemd5: String) -> [String] {
        framemd5.split(separator: "\n").compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// `init-stream<n>.m4s` and its `chunk-stream<n>-…` files in order.
    static func templateFiles(_ dir: URL, stream n: Int) throws -> [String] {
        let chunks = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasPrefix("chunk-stream\(n)-") }.sorted()
        return ["init-stream\(n).m4s"] + chunks
    }
}

extension Optional {
    /// The value, or a harness error saying what was missing.
    func orThrow(_ message: String) throws -> Wrapped {
        guard let self else { throw HarnessError(message) }
        return self
    }
}
