import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Hostile titles: each refused with an error naming what was wrong; nothing written outside the title.
@Suite("Hostile titles", .serialized)
struct HostileTitleTests {
    @Test func hostileTitlesAreRefusedAndNothingLeavesTheTitleDirectory() throws {
        let h = try Harness(name: "hostile")
        try h.makeSample(seconds: 4)
        let m = h.media
        func write(_ name: String, _ text: String) throws {
            let url = m.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let head = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n"
        try write(
            "huge-line.m3u8", head + "#EXTINF:2,\n" + String(repeating: "a", count: 200_000) + ".ts\n#EXT-X-ENDLIST\n")
        try write("million.m3u8", head + String(repeating: "#EXTINF:1,\ns.ts\n", count: 1_000_000) + "#EXT-X-ENDLIST\n")
        try write("file-segment.m3u8", head + "#EXTINF:2,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n")
        try write("file-variant.m3u8", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100000\nfile:///etc/shadow\n")
        try write(
            "deep/a/b/escape.m3u8",
            head + "#EXTINF:2,\n../../../v360p/seg000.ts\n#EXTINF:2,\n/../../v360p/seg001.ts\n#EXT-X-ENDLIST\n")
        try h.startOrigin(extra: [
            "--redirect", "/loop-a.m3u8=/loop-b.m3u8", "--redirect", "/loop-b.m3u8=/loop-a.m3u8",
            "--redirect", "/to-file.m3u8=file:///etc/passwd", "--redirect",
            "/elsewhere.m3u8=http://localhost/v360p/index.m3u8",
        ])
        let port = try #require(URL(string: h.originURL)?.port)
        // localhost is the same machine, but not on the allow-list.
        try write("other-host.m3u8", head + "#EXTINF:2,\nhttp://localhost:\(port)/v360p/seg000.ts\n#EXT-X-ENDLIST\n")
        try h.startPipeline(schedulerArguments: ["--allow-hosts", "127.0.0.1"])

        func refused(_ path: String, _ code: ErrorCode, _ words: String) throws {
            let status = try h.waitForFinal(try h.submit(path), timeout: 60)
            #expect(status.state == .failed, "\(path) must fail")
            #expect(status.error?.code == code, "\(path): \(String(describing: status.error))")
            #expect(status.error?.message.contains(words) == true, "\(path): \(status.error?.message ?? "no error")")
        }
        try refused("huge-line.m3u8", .playlist, "longer than")
        try refused("million.m3u8", .playlist, "more than 200000 segments")
        try refused("file-segment.m3u8", .refused, "file:///etc/passwd")
        try refused("file-variant.m3u8", .refused, "file:///etc/shadow")
        try refused("loop-a.m3u8", .refused, "redirect loop")
        try refused("to-file.m3u8", .refused, "only http and https")
        try refused("other-host.m3u8", .refused, "host localhost is not on the allow-list")
        try refused("elsewhere.m3u8", .refused, "host localhost is not on the allow-list")
        #expect(
            !h.originLog().contains { $0.count > 2 && $0[2].hasSuffix("seg000.ts") },
            "nothing fetched from a host that is not allowed")
        let (direct, message) = try h.stowctl(["submit", "http://localhost:\(port)/master.m3u8"])
        #expect(direct == 1 && message.isEmpty, "refused at submit")

        // URIs that climb out of their folder are fetched from the origin as URLs; on disk Stowage names the files.
        let escape = try h.waitForFinal(try h.submit("deep/a/b/escape.m3u8"), timeout: 60)
        #expect(escape.state == .completed, "\(String(describing: escape.error))")
        let titleDir = "titles/\(escape.token)/"
        let walker = FileManager.default.enumerator(atPath: h.home.path)
        var outside: [String] = []
        while let path = walker?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(atPath: h.home.appendingPathComponent(path).path, isDirectory: &isDirectory)
            if isDirectory.boolValue || path.hasPrefix(titleDir) || path.hasPrefix("run/") || path.hasPrefix("logs/") {
                continue
            }
            // The store, the master key and the box's identity (bundles) are the home's own files.
            if path.hasPrefix("stowage.sqlite") || path == "master.key" || path == "box.key" { continue }
            outside.append(path)
        }
        #expect(outside.isEmpty, "files outside the title directory: \(outside)")
        let stored = try FileManager.default.subpathsOfDirectory(atPath: h.home.appendingPathComponent(titleDir).path)
            .sorted()
        #expect(stored.allSatisfy { !$0.contains("..") } && stored.contains("video/seg-000000.ts"), "\(stored)")
    }
}
