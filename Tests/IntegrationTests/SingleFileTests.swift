import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// `submit --file mp4|mkv`: the box writes the title as one `title.mp4` when it completes, with the real processes
/// and ffmpeg-made media. Its video frames equal the offline copy's (`framemd5`); it is hashed and verified like
/// every other file (`verify` finds it changed at rest, `--repair` writes it again, not fetched); the gateway serves
/// it with ranges through the hot path and ffmpeg decodes it from a seek over HTTP; the play page offers it. A
/// protected or rented title is refused, naming why.
@Suite("SingleFile", .serialized)
struct SingleFileTests {
    static func frames(_ path: String, _ stream: String = "v", extra: [String] = []) throws -> [String] {
        DASHMedia.hashes(try OfflineCopy.framemd5(path, stream: stream, extra: extra))
    }

    @Test func submitFileMP4WritesAVerifiedTitleMP4TheGatewayServesWithRanges() throws {
        let h = try Harness(name: "single-file")
        try TestMedia.multiLanguage(into: h.media, seconds: 10)
        try h.startOrigin()
        try h.startPipeline()
        let token = try h.submit(
            "master.m3u8", ["--audio", "en,de", "--subtitles", "all", "--file", "mp4", "--id", "film"])
        let status = try h.waitForFinal(token)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        let folder = h.home.appendingPathComponent("titles/\(token)")
        let path = folder.appendingPathComponent("title.mp4").path
        let file = try #require(status.file, "status --json has the file")
        #expect(file.format == .mp4 && file.state == .written && file.path == path, "\(file)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(file.bytes == Int64(size) && size > 100_000, "its length: \(String(describing: file.bytes)) \(size)")
        // Counted in the title's size: every file in the folder but the playlists the box writes is a stored file.
        #expect(status.bytesDownloaded >= Int64(size) * 2 - 50_000, "counted: \(status.bytesDownloaded) of \(size)")
        let entry = try #require(status.localPlaylist)
        let video = try Self.frames(entry)
        #expect(video.count == 250, "10 s at 25 fps: \(video.count)")
        #expect(try Self.frames(path) == video, "the file's video frames are the offline copy's")
        let english = try Self.frames(entry, "a:m:language:en")
        #expect(try Self.frames(path, "a:0") == english, "the English audio is the offline copy's")
        let (_, streams) = try TestMedia.shOutput(
            "ffprobe -v error -show_entries stream=codec_type:stream_tags=language -of csv=p=0 '\(path)'", in: h.root)
        #expect(
            streams.split(separator: "\n") == ["video,und", "audio,eng", "audio,ger", "subtitle,eng", "subtitle,fre"],
            "video, both languages and the subtitles (TitleSubtitles), tagged: \(streams)")
        let boxes = try DASHMedia.topLevelBoxes(Data(contentsOf: URL(fileURLWithPath: path)))
        let moov = try #require(boxes.firstIndex { $0.type == "moov" })
        let mdat = try #require(boxes.firstIndex { $0.type == "mdat" })
        #expect(moov < mdat, "the index comes first (+faststart): \(boxes.map(\.type))")

        // Hashed and verified like every other file; a changed byte is found, and --repair writes it again.
        #expect(try h.stowctl(["verify", token]).0 == 0)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(size - 1000))
        let byte = try #require(try handle.read(upToCount: 1)).first ?? 0
        try handle.seek(toOffset: UInt64(size - 1000))
        try handle.write(contentsOf: Data([byte ^ 0xFF]))
        try handle.close()
        let (found, report) = try h.stowctl(["verify", token])
        #expect(found == 1 && report.contains("title.mp4"), "verify names the changed file: \(report)")
        #expect(h.terminate("origin") == 0, "the repair needs no origin: the file is written, not fetched")
        let (repaired, repairReport) = try h.stowctl(["verify", token, "--repair"])
        #expect(repaired == 0, "verify --repair writes it again: \(repairReport)")
        #expect(try Self.frames(path) == video, "the file written again is the offline copy's")
        #expect(try h.stowctl(["verify", token]).0 == 0)

        // Served by the gateway: whole, a range (206, exact), and ffmpeg decodes it from a seek over HTTP.
        let gateway = try h.startGateway(address: "127.0.0.1")
        let secret = try h.addDevice("tv")
        let url = "\(gateway)/titles/film/title.mp4"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let out = h.root.appendingPathComponent("range.out").path
        let (_, ranged) = try TestMedia.shOutput(
            "curl -s -o '\(out)' -w '%{http_code} %{size_download}' -H 'Authorization: Bearer \(secret)' "
                + "-H 'Range: bytes=1000-1999' '\(url)'", in: h.root)
        #expect(ranged == "206 1000", "a Range request is answered 206: \(ranged)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == bytes[1000..<2000], "the range's bytes")
        #expect(try h.httpStatus(url) == 401, "under the same credentials as the copy")
        let seek = try Self.frames(url, extra: ["-ss", "5", "-headers", "Authorization: Bearer \(secret)\r\n"])
        #expect(
            seek.count >= 120 && seek.count <= 130 && seek == Array(video.suffix(seek.count)),
            "decoded from 5 s: \(seek.count) frames, the copy's last ones")
        let (_, page) = try TestMedia.shOutput(
            "curl -s -H 'Authorization: Bearer \(secret)' '\(gateway)/play/film'", in: h.root)
        #expect(page.contains("href=\"/titles/\(token)/title.mp4\" download"), "the play page offers it: \(page)")
    }

    @Test func aProtectedOrRentedTitleIsRefused() throws {
        let h = try Harness(name: "single-file-refused")
        try TestMedia.aesExplicitIV(into: h.media, seconds: 4)
        try TestMedia.fmp4(into: h.media.appendingPathComponent("clear"), singleFile: false, seconds: 4)
        try h.startOrigin()
        try h.startPipeline()
        let rented = try h.stowctlStreams(
            ["submit", h.originURL + "clear/index.m3u8", "--file", "mp4", "--rental", "24h"])
        #expect(
            rented.status == 1 && rented.stderr.contains("one file would outlive its license")
                && rented.stderr.contains("rental"), "refused at submit: \(rented.stderr)")
        let (listed, list) = try h.stowctl(["list", "--json"])
        // STOWAGE_FILE is --file (the one resolver of STOWAGE_<OPTION>): refused alike; a bad value names it.
        let stowctl = "env STOWAGE_HOME='\(h.home.path)' '\(h.bin.appendingPathComponent("stowctl").path)'"
        let (fromEnvironment, said) = try TestMedia.shOutput(
            "STOWAGE_FILE=mkv \(stowctl) submit '\(h.originURL)clear/index.m3u8' --play-count 3 2>&1", in: h.root)
        #expect(fromEnvironment == 1 && said.contains("number of plays"), "STOWAGE_FILE=mkv: \(said)")
        let (badVariable, named) = try TestMedia.shOutput(
            "STOWAGE_FILE=avi \(stowctl) submit '\(h.originURL)clear/index.m3u8' 2>&1", in: h.root)
        #expect(badVariable == 2 && named.contains("STOWAGE_FILE"), "STOWAGE_FILE=avi: \(named)")
        let titles = try JSONDecoder().decode([TitleStatus].self, from: Data(list.utf8))
        #expect(listed == 0 && titles.isEmpty, "no title was made: \(list)")

        let protected = try h.stowctlStreams(["submit", h.originURL + "index.m3u8", "--file", "mkv", "--wait"])
        #expect(
            protected.status == 1 && protected.stderr.contains("encrypted")
                && protected.stderr.contains("one file would outlive its license"),
            "a protected source is refused when planned: \(protected.stderr)")
        #expect(h.originRequests(containing: ".ts") == 0, "before any media is fetched")

        let live = try h.stowctlStreams(["submit", h.originURL + "clear/index.m3u8", "--file", "mp4", "--record"])
        #expect(live.status == 2 && live.stderr.contains("--record"), "\(live.stderr)")
        let bad = try h.stowctlStreams(["submit", h.originURL + "clear/index.m3u8", "--file", "avi"])
        #expect(bad.status == 2 && bad.stderr.contains("mp4 or mkv"), "\(bad.stderr)")
    }
}
