import Foundation
import StowageTestSupport
import Testing

/// Titles made by Shaka Packager (the real packager new users try; `Deploy/lib.sh`'s `ensure_shaka_packager`
/// installs it and exports `SHAKA_PACKAGER`) from ffmpeg's clear input.
enum ShakaPackager {
    /// The packager binary. A missing packager fails the test that needs it, saying how to install it: a test
    /// that cannot run must never pass.
    static func binary() throws -> String {
        guard let path = ProcessInfo.processInfo.environment["SHAKA_PACKAGER"], !path.isEmpty,
            FileManager.default.isExecutableFile(atPath: path)
        else {
            throw HarnessError(
                "Shaka Packager not found: SHAKA_PACKAGER is unset or not executable; run Deploy/test.sh, or "
                    + "`source Deploy/lib.sh && ensure_shaka_packager` and export SHAKA_PACKAGER")
        }
        return path
    }

    /// Four seconds of ffmpeg test video (H.264, a keyframe each second) and a sine tone (AAC) in `in.mp4`.
    static func input(_ dir: URL) throws -> URL {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        _ = try TestMedia.sh(
            "ffmpeg -nostdin -v error -y -f lavfi -i testsrc=size=320x240:rate=25 "
                + "-f lavfi -i sine=frequency=440:sample_rate=48000 -t 4 -c:v libx264 -g 25 -keyint_min 25 "
                + "-sc_threshold 0 -pix_fmt yuv420p -c:a aac -shortest in.mp4", in: dir)
        return dir.appendingPathComponent("in.mp4")
    }

    /// Static DASH (`$Number$` + SegmentTimeline, one-second segments) of `input`'s video and audio in `dir`,
    /// encrypted with `scheme` (`cenc`, `cbcs`) by one raw key and no clear lead: Shaka Packager then writes only
    /// the W3C common PSSH (`1077efec-…`), no Clear Key ContentProtection and no license URL.
    /// `systems` (`Widevine,PlayReady`) replaces the common PSSH with those systems' signalling.
    static func rawKeyDASH(
        input: URL, into dir: URL, scheme: String, kid: String, key: String, systems: String? = nil
    ) throws {
        try dash(
            input: input, into: dir,
            options: "--enable_raw_key_encryption --keys label=:key_id=\(kid):key=\(key) --protection_scheme "
                + "\(scheme) --clear_lead 0 " + (systems.map { "--protection_systems \($0) " } ?? ""))
    }

    /// The same static DASH, clear: `v/init.mp4`, `v/1.m4s` … and `a/…` beside `manifest.mpd`. `trickPlay`
    /// adds Shaka's trick-mode AdaptationSet of the video (`trick_play_factor=1`: every key frame, one a second)
    /// in `t/`, signalled by the DASH-IF `EssentialProperty`.
    static func clearDASH(input: URL, into dir: URL, trickPlay: Bool = false) throws {
        try dash(input: input, into: dir, options: "", trickPlay: trickPlay)
    }

    private static func dash(input: URL, into dir: URL, options: String, trickPlay: Bool = false) throws {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var streams = ["video": "v", "audio": "a"].map { stream, folder in
            "in=\(input.path),stream=\(stream),init_segment=\(folder)/init.mp4,"
                + "segment_template='\(folder)/$Number$.m4s'"
        }
        if trickPlay {
            streams.append(
                "in=\(input.path),stream=video,init_segment=t/init.mp4,segment_template='t/$Number$.m4s',"
                    + "trick_play_factor=1")
        }
        _ = try TestMedia.sh(
            "'\(try binary())' \(streams.joined(separator: " ")) \(options)"
                + "--segment_duration 1 --generate_static_live_mpd --mpd_output manifest.mpd 2>packager.log",
            in: dir)
    }
}

extension ShakaPackager {
    /// HLS of `input`'s video and audio in `dir` (`master.m3u8`, `v.m3u8`, `a.m3u8`, one-second segments), clear
    /// when `scheme` is nil, else encrypted with `scheme` by one raw key: `cbcs` writes `METHOD=SAMPLE-AES` (fMP4
    /// with `ext` "m4s", MPEG-TS with "ts"), `cenc` SAMPLE-AES-CTR fMP4. `keyURI` is what `--hls_key_uri` puts in the
    /// playlists' `URI` (without it Shaka Packager v3.8.0 writes a `data:` URI holding the key *ID*, which no player
    /// can use as the key).
    /// `videoExtra`: more fields of the video's stream descriptor (`iframe_playlist_name=…`).
    static func hls(
        input: URL, into dir: URL, scheme: String?, ext: String, kid: String = "", key: String = "",
        keyURI: String = "", videoExtra: String = ""
    ) throws {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let streams = [("video", "v", videoExtra), ("audio", "a", ",hls_group_id=audio,hls_name=en")].map {
            stream, folder, extra in
            "'in=\(input.path),stream=\(stream),"
                + (ext == "ts" ? "" : "init_segment=\(folder)/init.mp4,")
                + "segment_template=\(folder)/$Number$.\(ext),playlist_name=\(folder).m3u8\(extra)'"
        }
        let encryption = scheme.map {
            "--enable_raw_key_encryption --keys label=:key_id=\(kid):key=\(key) --protection_scheme \($0) "
                + "--clear_lead 0 --hls_key_uri '\(keyURI)' "
        }
        _ = try TestMedia.sh(
            "'\(try binary())' \(streams.joined(separator: " ")) \(encryption ?? "")--segment_duration 1 "
                + "--hls_master_playlist_output master.m3u8 2>packager.log",
            in: dir)
    }
}
