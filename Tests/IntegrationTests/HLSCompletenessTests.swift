import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Real packager output (ffmpeg, openssl) through the whole pipeline: the offline copy must be the same
/// media, frame for frame, as the origin's rendition.
@Suite("HLS completeness", .serialized)
struct HLSCompletenessTests {
    func run(_ name: String, _ make: (URL) throws -> Void, schedulerArguments: [String] = []) throws -> Harness {
        let h = try Harness(name: name)
        try make(h.media)
        try h.startOrigin()
        try h.startPipeline(schedulerArguments: schedulerArguments)
        return h
    }

    func submitAndWait(_ h: Harness, _ path: String, _ options: [String]) throws -> TitleStatus {
        let (code, out) = try h.stowctl(["submit", h.originURL + path, "--wait"] + options)
        let token = try #require(out.split(separator: "\n").last.map(String.init))
        let status = try h.status(token)
        #expect(code == 0, "\(String(describing: status.error))")
        #expect(status.state == .completed)
        return status
    }

    /// A stream of a title as `stowctl play` serves it, and the origin playlist it must match.
    struct PlayedStream {
        /// Path under the play server's root (nil: the entry playlist `stowctl play` prints).
        var offline: String?
        var origin: String
        /// ffmpeg's stream specifier: v, a or s (subtitles are hashed as stored).
        var stream: String

        /// Video and audio of a single media playlist (the entry of a title without a master).
        static func videoAndAudio(of origin: String) -> [PlayedStream] {
            ["v", "a"].map { PlayedStream(offline: nil, origin: origin, stream: $0) }
        }
    }

    /// Hashes each stream at the origin, stops the origin (a clean exit 0 on SIGTERM) and hashes the same streams
    /// through `stowctl play`: offline playback is the same media, frame for frame, cue for cue.
    func checkPlaysOffline(_ h: Harness, _ token: String, _ streams: [PlayedStream]) throws {
        let expected = try streams.map {
            try OfflineCopy.framemd5(h.originURL + $0.origin, stream: $0.stream, copy: $0.stream == "s")
        }
        #expect(h.terminate("origin") == 0, "the origin stops cleanly on SIGTERM")
        let entry = try h.startPlay(token)
        let port = try #require(URL(string: entry)?.port, "stowctl play printed \(entry)")
        for (s, frames) in zip(streams, expected) {
            let url = s.offline.map { "http://127.0.0.1:\(port)/\($0)" } ?? entry
            let played = try OfflineCopy.framemd5(url, stream: s.stream, copy: s.stream == "s")
            #expect(played == frames, "stream \(s.stream) of \(url) plays as the origin's \(s.origin)")
        }
    }

    /// The frame helper itself: a decode that fails is an error naming the URL and quoting ffmpeg, never frames.
    @Test func framemd5FailsWhenFFmpegFails() throws {
        let h = try Harness(name: "ffmpeg-fails")
        try FileManager.default.createDirectory(at: h.media, withIntermediateDirectories: true)
        try h.startOrigin()
        for missing in [h.originURL + "missing/index.m3u8", h.media.appendingPathComponent("missing.m3u8").path] {
            do {
                let frames = try OfflineCopy.framemd5(missing)
                Issue.record("framemd5 of \(missing) returned \(frames.count) characters")
            } catch {
                let text = "\(error)"
                #expect(
                    text.contains(missing) && text.contains("exited 1") && text.contains("stderr: ")
                        && text.count > "\(missing)".count + 60, "\(text)")
            }
        }
        #expect(h.originRequests(matching: "missing/index.m3u8") >= 1, "ffmpeg asked the origin")
    }

    @Test func selectsVariantAudioAndSubtitles() throws {
        let h = try run("multi") { try TestMedia.multiLanguage(into: $0) }
        let status = try submitAndWait(h, "master.m3u8", ["--bitrate", "600000", "--audio", "de", "--subtitles", "en"])
        let master = try #require(status.localPlaylist)
        let dir = URL(fileURLWithPath: master).deletingLastPathComponent()
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == [
                "audio-de", "master.m3u8", "subtitles", "subtitles-en", "video",
            ])
        // The kept subtitles also as one .vtt and one .srt (#44 item 2).
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("subtitles").path).sorted()
                == ["en.srt", "en.vtt"])
        _ = try OfflineCopy.compare(
            localMedia: dir.appendingPathComponent("video/index.m3u8"),
            originMedia: h.media.appendingPathComponent("mid/index.m3u8"))
        _ = try OfflineCopy.compare(
            localMedia: dir.appendingPathComponent("audio-de/index.m3u8"),
            originMedia: h.media.appendingPathComponent("ade/index.m3u8"))
        _ = try OfflineCopy.compare(
            localMedia: dir.appendingPathComponent("subtitles-en/index.m3u8"),
            originMedia: h.media.appendingPathComponent("subs-en/index.m3u8"))
        #expect(h.originRequests(matching: "subs-fr/part0.vtt") == 0)
        #expect(h.originRequests(matching: "aen/seg000.ts") == 0)
        let text = try String(contentsOfFile: master, encoding: .utf8)
        #expect(text.contains("LANGUAGE=\"de\"") && !text.contains("LANGUAGE=\"en\",URI=\"audio"))
        #expect(text.contains("SUBTITLES=\"subs\""))
        // The video through the offline master (its one variant); the German audio through its own playlist, as
        // at the origin (in a master's context ffmpeg times the first AAC frames differently, same samples).
        try checkPlaysOffline(
            h, status.token,
            [
                PlayedStream(offline: nil, origin: "mid/index.m3u8", stream: "v"),
                PlayedStream(offline: "audio-de/index.m3u8", origin: "ade/index.m3u8", stream: "a"),
                PlayedStream(offline: "subtitles-en/index.m3u8", origin: "subs-en/index.m3u8", stream: "s"),
            ])
    }

    @Test func fragmentedMP4WithInitSection() throws {
        let h = try run("fmp4") { try TestMedia.fmp4(into: $0, singleFile: false) }
        let status = try submitAndWait(h, "index.m3u8", [])
        let local = try #require(status.localPlaylist)
        _ = try OfflineCopy.compare(
            localMedia: URL(fileURLWithPath: local), originMedia: h.media.appendingPathComponent("index.m3u8"))
        #expect(h.originRequests(matching: "init.mp4") == 1, "the shared init section is fetched once")
        try checkPlaysOffline(h, status.token, PlayedStream.videoAndAudio(of: "index.m3u8"))
    }

    @Test func singleFileByteRanges() throws {
        let h = try run("range") { try TestMedia.fmp4(into: $0, singleFile: true) }
        let status = try submitAndWait(h, "index.m3u8", [])
        let local = URL(fileURLWithPath: try #require(status.localPlaylist))
        // The ranges tile the origin's file: their concatenation is the file, byte for byte.
        let text = try String(contentsOf: local, encoding: .utf8)
        let initName = try #require(
            text.split(separator: "\n").first { $0.hasPrefix("#EXT-X-MAP") }.flatMap {
                $0.split(separator: "\"").dropFirst().first
            })
        var joined = try Data(contentsOf: local.deletingLastPathComponent().appendingPathComponent(String(initName)))
        for name in try OfflineCopy.uris(local) {
            joined += try Data(contentsOf: local.deletingLastPathComponent().appendingPathComponent(name))
        }
        #expect(joined == (try Data(contentsOf: h.media.appendingPathComponent("index.m4s"))))
        try checkPlaysOffline(h, status.token, PlayedStream.videoAndAudio(of: "index.m3u8"))
    }

    /// An encrypted title: same bytes as the origin, keys only in the store (wrapped), and the same frames
    /// (video and audio) through `stowctl play` with the origin stopped.
    func checkEncrypted(
        _ h: Harness, keyFiles: [String], expectedKeyTags: Int, reference: String = "index.m3u8",
        inlineKey: Bool = false
    ) throws {
        let status = try submitAndWait(h, "index.m3u8", [])
        let local = URL(fileURLWithPath: try #require(status.localPlaylist))
        _ = try OfflineCopy.compare(localMedia: local, originMedia: h.media.appendingPathComponent("index.m3u8"))
        let text = try String(contentsOf: local, encoding: .utf8)
        #expect(text.components(separatedBy: "#EXT-X-KEY").count - 1 == expectedKeyTags)
        #expect(text.contains("URI=\"/keys/0\"") && !text.contains("http"))
        let files = try FileManager.default.subpathsOfDirectory(atPath: local.deletingLastPathComponent().path)
        #expect(
            !files.contains { $0.hasSuffix(".key") || $0.hasSuffix(".bin") },
            "keys are never written next to the media: \(files)")
        // No key is in the clear in the store (or its -wal), any log or the title's folder.
        for keyFile in keyFiles {
            let key = try Data(contentsOf: h.media.appendingPathComponent(keyFile))
            #expect(key.count == 16)
            try expectKeyNotAtRest(h, Array(key), title: status.token, keyFile, inlineInStore: inlineKey)
        }
        try checkPlaysOffline(h, status.token, PlayedStream.videoAndAudio(of: reference))
    }

    @Test func aes128WithExplicitIV() throws {
        let h = try run("aes1") { try TestMedia.aesExplicitIV(into: $0) }
        try checkEncrypted(h, keyFiles: ["key.bin"], expectedKeyTags: 1)
    }

    /// A `data:` key (issue #31): read inline, never fetched, wrapped like a fetched key, served at `/keys/0`,
    /// and never shown in a log or in `status --json`.
    @Test(arguments: [false, true]) func aes128WithDataKeyURI(percentEncoded: Bool) throws {
        let h = try run(percentEncoded ? "aes-data-pct" : "aes-data") {
            try TestMedia.aesDataKey(into: $0, percentEncoded: percentEncoded)
        }
        let playlist = try String(contentsOf: h.media.appendingPathComponent("index.m3u8"), encoding: .utf8)
        #expect(playlist.contains("URI=\"data:"), "\(playlist)")
        try checkEncrypted(h, keyFiles: ["key.bin"], expectedKeyTags: 1, reference: "fetched.m3u8", inlineKey: true)
        #expect(h.originRequests(containing: "key.bin") == 0, "a data: key is not fetched")
        let key = try Data(contentsOf: h.media.appendingPathComponent("key.bin"))
        let json = try h.stowctl(["list", "--json"]).1
        #expect(!json.contains(key.base64EncodedString()), "\(json)")
    }

    /// rfc8216bis AES-256: the 32-byte key is fetched, wrapped, and served at `/keys/0` with the origin stopped;
    /// the stored segments decrypted with the served key are the clear segments, byte for byte (ffmpeg's HLS
    /// demuxer reads only AES-128, so the frames are compared through openssl).
    @Test func aes256KeyIsKeptAndServedOffline() throws {
        let h = try run("aes256") { try TestMedia.aes256(into: $0) }
        let status = try submitAndWait(h, "index.m3u8", [])
        let local = URL(fileURLWithPath: try #require(status.localPlaylist))
        let text = try String(contentsOf: local, encoding: .utf8)
        #expect(text.contains("METHOD=AES-256,URI=\"/keys/0\""), "\(text)")
        let key = try Data(contentsOf: h.media.appendingPathComponent("k256.key"))
        #expect(key.count == 32)
        try expectKeyNotAtRest(h, Array(key), title: status.token, "the AES-256 key")
        #expect(h.terminate("origin") == 0, "the origin stops cleanly on SIGTERM")
        let entry = try h.startPlay(status.token)
        let port = try #require(URL(string: entry)?.port, "stowctl play printed \(entry)")
        try TestMedia.sh("curl -sf -o served.key http://127.0.0.1:\(port)/keys/0", in: h.root)
        #expect(try Data(contentsOf: h.root.appendingPathComponent("served.key")) == key)
        let iv = try String(contentsOf: h.media.appendingPathComponent("iv.hex"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let names = try OfflineCopy.uris(local)
        #expect(names.count == 2)
        for (i, name) in names.enumerated() {
            let stored = local.deletingLastPathComponent().appendingPathComponent(name).path
            let clear = h.media.appendingPathComponent(String(format: "clear/seg%03d.ts", i)).path
            try TestMedia.sh(
                "openssl enc -d -aes-256-cbc -K $(od -An -tx1 served.key | tr -d ' \\n') -iv \(iv) -in '\(stored)'"
                    + " | cmp - '\(clear)'", in: h.root)
        }
    }

    /// An encrypted init section (issue #46; Shaka Player's `hls-aes-256` title): the key before the `EXT-X-MAP`
    /// applies to it, so it is ciphertext on the wire. Each method downloads, verifies (the CBC ones judged after
    /// decryption), keeps init and segments as delivered (decrypted with the served key they are the clear files,
    /// byte for byte) and keeps the key before the map offline; AES-128 plays offline frame-identical to the clear
    /// fMP4 (ffmpeg's HLS demuxer reads only AES-128).
    @Test(arguments: ["AES-128", "AES-256", "AES-256-CTR"]) func anEncryptedInitSection(method: String) throws {
        let h = try run("emap-\(method.lowercased())") { try TestMedia.fmp4EncryptedMap(into: $0, method: method) }
        let status = try submitAndWait(h, "index.m3u8", [])
        let local = URL(fileURLWithPath: try #require(status.localPlaylist))
        let text = try String(contentsOf: local, encoding: .utf8)
        let keyLine = try #require(text.range(of: "#EXT-X-KEY:METHOD=\(method),URI=\"/keys/0\""), "\(text)")
        let mapLine = try #require(text.range(of: "#EXT-X-MAP:URI="), "\(text)")
        #expect(keyLine.lowerBound < mapLine.lowerBound, "the key still applies to the map offline: \(text)")
        #expect(h.terminate("origin") == 0)
        let entry = try h.startPlay(status.token)
        let port = try #require(URL(string: entry)?.port, "stowctl play printed \(entry)")
        try TestMedia.sh("curl -sf -o served.key http://127.0.0.1:\(port)/keys/0", in: h.root)
        let iv = try String(contentsOf: h.media.appendingPathComponent("iv.hex"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let cipher = ["AES-128": "aes-128-cbc", "AES-256": "aes-256-cbc"][method] ?? "aes-256-ctr"
        let folder = local.deletingLastPathComponent()
        let mapName = String(text[mapLine.upperBound...].dropFirst().prefix { $0 != "\"" })
        let clearNames = try OfflineCopy.uris(h.media.appendingPathComponent("clear/index.m3u8"))
        let stored = [mapName] + (try OfflineCopy.uris(local))
        #expect(stored.count == clearNames.count + 1)
        for (name, clear) in zip(stored, ["init.mp4"] + clearNames) {
            try TestMedia.sh(
                "openssl enc -d -\(cipher) -K $(od -An -tx1 served.key | tr -d ' \\n') -iv \(iv) "
                    + "-in '\(folder.appendingPathComponent(name).path)' | cmp - '\(h.media.path)/clear/\(clear)'",
                in: h.root)
        }
        if method == "AES-128" {
            let played = try OfflineCopy.framemd5(entry)
            let clear = try OfflineCopy.framemd5(h.media.appendingPathComponent("clear/index.m3u8").path)
            #expect(!played.isEmpty && played == clear, "frames played offline are the clear input's")
        }
    }

    @Test func aes128RotatingKeysWithoutIVAndQueryStrings() throws {
        let h = try run("aes2") { try TestMedia.aesRotatingNoIV(into: $0) }
        try checkEncrypted(h, keyFiles: ["k0.key", "k1.key"], expectedKeyTags: 2)
        let local = try String(
            contentsOf: h.home.appendingPathComponent("titles").appendingPathComponent(
                try FileManager.default.contentsOfDirectory(atPath: h.home.appendingPathComponent("titles").path)[0]
            ).appendingPathComponent("video/index.m3u8"), encoding: .utf8)
        #expect(local.contains("#EXT-X-MEDIA-SEQUENCE:7"))
    }

    @Test func refusesATitleThatDoesNotFitOnDisk() throws {
        let h = try run(
            "disk", { try TestMedia.fmp4(into: $0, singleFile: false) },
            schedulerArguments: ["--disk-cushion", "\(OutsideNumbers.maxBytes)"])
        let (code, out) = try h.stowctl(["submit", h.originURL + "index.m3u8", "--wait"])
        #expect(code == 1)
        let token = try #require(out.split(separator: "\n").last.map(String.init))
        let status = try h.status(token)
        #expect(status.error?.code == .diskFull)
        #expect(status.error?.message.contains("--disk-cushion") == true)
        #expect(h.originRequests(matching: ".m4s") == 0, "nothing was fetched")
    }
}
