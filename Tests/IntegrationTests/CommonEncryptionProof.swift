import Foundation
import StowageTestSupport
import Testing

/// Proof that the offline copy of a Shaka Packager fMP4 SAMPLE-AES (`cbcs`) or SAMPLE-AES-CTR (`cenc`) HLS title
/// is what the origin sent, without ffmpeg's HLS decryption: every file the copy stores besides its playlists (each
/// rendition's init section and segments) equals the origin's byte for byte, and each rendition's stored files,
/// decrypted by the test's own ``CommonEncryptionReader`` and decoded, give the packager's clear frames — the
/// video the input's, the audio the packager's clear output's (its fMP4 keeps the AAC priming frame the input's
/// edit list hides).
enum CommonEncryptionProof {
    /// `copy`: the title's directory; `origin`: the packager's folder (`v.m3u8`, `a.m3u8`); `clear`: the same
    /// title packaged clear. Returns the number of stored media files compared.
    @discardableResult
    static func prove(
        copy: URL, origin: URL, clear: URL, input: URL, key: [UInt8], scheme: String, in h: Harness
    ) throws -> Int {
        var compared = Set<String>()
        for (index, (local, source)) in try ShakaPackagerHLSTests.renditions(copy, origin: origin).enumerated() {
            let stored = try files(local)
            let served = try files(source)
            #expect(stored.count == served.count && stored.count > 2, "\(local.path): \(stored) vs \(served)")
            for (l, o) in zip(stored, served) {
                #expect(try Data(contentsOf: l) == Data(contentsOf: o), "\(l.path) differs from the origin's \(o.path)")
                compared.insert(l.standardizedFileURL.path)
            }
            let stream = index == 0 ? "v" : "a"
            let (initSection, track) = try CommonEncryptionReader.clearInit(Array(try Data(contentsOf: stored[0])))
            #expect(track.scheme == scheme, "\(local.path): \(track)")
            var joined = initSection
            for file in stored.dropFirst() {
                joined += try CommonEncryptionReader.clearSegment(
                    Array(try Data(contentsOf: file)), track: track, key: key)
            }
            let decoded = try frames(Data(joined), stream: stream, in: h)
            let reference =
                stream == "v"
                ? DASHMedia.hashes(try OfflineCopy.framemd5(input.path, stream: "v"))
                : try frames(
                    try files(clear.appendingPathComponent("a.m3u8")).reduce(into: Data()) {
                        $0 += try Data(contentsOf: $1)
                    }, stream: "a", in: h)
            #expect(decoded.count > 20, "\(stream): \(decoded.count) frames")
            #expect(
                decoded == reference, "\(local.path) decrypted by the test's own reader decodes to the clear frames")
        }
        for path in try FileManager.default.subpathsOfDirectory(atPath: copy.path) {
            let url = copy.appendingPathComponent(path)
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true,
                url.pathExtension != "m3u8"
            else { continue }
            #expect(compared.contains(url.standardizedFileURL.path), "\(path) is stored but was not compared")
        }
        return compared.count
    }

    /// The init section (`EXT-X-MAP`) then the segments of a media playlist, as files beside it.
    static func files(_ playlist: URL) throws -> [URL] {
        let dir = playlist.deletingLastPathComponent()
        var out: [URL] = []
        for line in try String(contentsOf: playlist, encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("#EXT-X-MAP:"), let uri = ShakaPackagerHLSTests.attribute("URI", in: String(line)) {
                out.append(dir.appendingPathComponent(uri))
            } else if !line.hasPrefix("#"), !line.trimmingCharacters(in: .whitespaces).isEmpty {
                out.append(dir.appendingPathComponent(String(line)))
            }
        }
        return out
    }

    /// The frame hashes of one track's joined fMP4 (each fragment may carry its own `sidx`: `+ignidx`).
    static func frames(_ joined: Data, stream: String, in h: Harness) throws -> [String] {
        let file = h.root.appendingPathComponent("own-\(UUID().uuidString).mp4")
        try joined.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return DASHMedia.hashes(try OfflineCopy.framemd5(file.path, stream: stream, extra: ["-fflags", "+ignidx"]))
    }
}
