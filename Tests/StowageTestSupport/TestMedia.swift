import Foundation

/// Real HLS made at test time by ffmpeg (and openssl for hand-built encrypted playlists). Never committed.
public enum TestMedia {
    @discardableResult
    public static func sh(_ command: String, in directory: URL) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", "set -euo pipefail; " + command]
        p.currentDirectoryURL = directory
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard p.terminationStatus == 0 else {
            throw HarnessError("command failed (\(p.terminationStatus)): \(command)\n\(text)")
        }
        return text
    }

    /// Runs a command and returns (status, stdout) without throwing on failure.
    public static func shOutput(_ command: String, in directory: URL) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", command]
        p.currentDirectoryURL = directory
        return try runCapturingOutput(p)
    }

    public static let source =
        "-f lavfi -i testsrc2=size=640x360:rate=25 -f lavfi -i sine=frequency=440:sample_rate=48000"

    /// Three TS variants (low/mid/high), two audio languages (en default, de), WebVTT subtitles (en, fr)
    /// added beside ffmpeg's master as a packager would.
    public static func multiLanguage(into dir: URL, seconds: Int = 6) throws {
        try sh(
            """
            ffmpeg -v error -y \(source) -f lavfi -i sine=frequency=660:sample_rate=48000 -t \(seconds) \
              -filter_complex "[0:v]split=3[a][b][c];[a]scale=320:180[v0];[b]scale=480:270[v1];[c]scale=640:360[v2]" \
              -map "[v0]" -map "[v1]" -map "[v2]" -map 1:a -map 2:a \
              -c:v libx264 -preset ultrafast -g 50 -sc_threshold 0 -b:v:0 200k -b:v:1 400k -b:v:2 800k -c:a aac \
            -b:a 64k \
              -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_filename "%v/seg%03d.ts" -master_pl_name \
            master.m3u8 \
              -var_stream_map "v:0,agroup:aud,name:low v:1,agroup:aud,name:mid v:2,agroup:aud,name:high a:0,\
            agroup:aud,language:en,name:aen,default:yes a:1,agroup:aud,language:de,name:ade" \
              "%v/index.m3u8"
            for lang in en fr; do
              mkdir -p subs-$lang
              printf 'WEBVTT\\n\\n00:00:00.000 --> 00:00:02.000\\nline one %s\\n\\n' $lang > subs-$lang/part0.vtt
              printf 'WEBVTT\\n\\n00:00:03.000 --> 00:00:05.000\\nline two %s\\n\\n' $lang > subs-$lang/part1.vtt
              printf '#EXTM3U\\n#EXT-X-TARGETDURATION:3\\n#EXT-X-PLAYLIST-TYPE:VOD\\n#EXTINF:3.0,\
            \\npart0.vtt\\n#EXTINF:3.0,\\npart1.vtt\\n#EXT-X-ENDLIST\\n' > subs-$lang/index.m3u8
            done
            sed -i 's/AUDIO="group_aud"/AUDIO="group_aud",SUBTITLES="subs"/' master.m3u8
            sed -i '2a #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=NO,\
            URI="subs-en/index.m3u8"\\n#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Francais",LANGUAGE="fr",\
            DEFAULT=NO,URI="subs-fr/index.m3u8"' master.m3u8
            """, in: dir)
    }

    /// One video-only TS variant with WebVTT subtitles (en, fr, two segments each: 0–2 s "line one LANG", 3–5 s
    /// "line two LANG") in a master playlist: what a headless browser can play (with no audio device, Chromium's
    /// media clock does not move for a stream with audio).
    public static func videoWithSubtitles(into dir: URL, seconds: Int = 8) throws {
        try sh(
            """
            mkdir -p video
            ffmpeg -v error -y -f lavfi -i testsrc2=size=640x360:rate=25 -t \(seconds) -c:v libx264 -preset ultrafast \
              -g 50 -sc_threshold 0 -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_filename 'video/seg%03d.ts' \
              video/index.m3u8
            for lang in en fr; do
              mkdir -p subs-$lang
              printf 'WEBVTT\\n\\n00:00:00.000 --> 00:00:02.000\\nline one %s\\n\\n' $lang > subs-$lang/part0.vtt
              printf 'WEBVTT\\n\\n00:00:03.000 --> 00:00:05.000\\nline two %s\\n\\n' $lang > subs-$lang/part1.vtt
              printf '#EXTM3U\\n#EXT-X-TARGETDURATION:3\\n#EXT-X-PLAYLIST-TYPE:VOD\\n#EXTINF:3.0,\\npart0.vtt\\n\
            #EXTINF:3.0,\\npart1.vtt\\n#EXT-X-ENDLIST\\n' > subs-$lang/index.m3u8
            done
            printf '#EXTM3U\\n#EXT-X-VERSION:3\\n\
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=NO,\
            URI="subs-en/index.m3u8"\\n\
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Francais",LANGUAGE="fr",DEFAULT=NO,\
            URI="subs-fr/index.m3u8"\\n\
            #EXT-X-STREAM-INF:BANDWIDTH=600000,RESOLUTION=640x360,CODECS="avc1.64001e",SUBTITLES="subs"\\n\
            video/index.m3u8\\n' > master.m3u8
            """, in: dir)
    }

    /// fMP4 segments with `EXT-X-MAP`; `singleFile` puts everything in one file addressed by byte ranges.
    public static func fmp4(into dir: URL, singleFile: Bool, seconds: Int = 6) throws {
        try sh(
            """
            ffmpeg -v error -y \(source) -t \(seconds) -c:v libx264 -preset ultrafast -g 50 -sc_threshold 0 -c:a \
            aac -b:a 64k \
              -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_type \
            fmp4 \(singleFile ? "-hls_flags single_file" : "-hls_segment_filename 'seg%03d.m4s'") index.m3u8
            """, in: dir)
    }

    /// AES-128 by ffmpeg: one key, explicit IV (`IV=0x…`), key URI relative to the playlist.
    public static func aesExplicitIV(into dir: URL, seconds: Int = 6) throws {
        try sh(
            """
            openssl rand 16 > key.bin
            printf 'key.bin?auth=abc\\nkey.bin\\n%s\\n' "$(openssl rand -hex 16)" > keyinfo
            ffmpeg -v error -y \(source) -t \(seconds) -c:v libx264 -preset ultrafast -g 50 -sc_threshold 0 -c:a \
            aac -b:a 64k \
              -f hls -hls_time 2 -hls_playlist_type vod -hls_key_info_file keyinfo -hls_segment_filename \
            'seg%03d.ts' index.m3u8
            rm keyinfo
            """, in: dir)
    }

    /// AES-128 by ffmpeg whose key is given inline, as Shaka Packager writes it: the key URI is rewritten to
    /// `data:text/plain;base64,…` (or, with `percentEncoded`, to `data:application/octet-stream,%xx…`). The key
    /// stays in `key.bin` for the test's checks; nothing at the origin's `index.m3u8` names it.
    public static func aesDataKey(into dir: URL, percentEncoded: Bool = false, seconds: Int = 6) throws {
        try aesExplicitIV(into: dir, seconds: seconds)
        let uri =
            percentEncoded
            ? #"data:application/octet-stream,$(od -An -tx1 key.bin | tr -d ' \n' | sed 's/../%&/g')"#
            : #"data:text/plain;base64,$(base64 -w0 key.bin)"#
        // ffmpeg reads only base64 data: keys: `fetched.m3u8` is the same media with a fetched key, for reference.
        try sh(#"cp key.bin plain.k; sed 's|URI="[^"]*"|URI="plain.k"|' index.m3u8 > fetched.m3u8"#, in: dir)
        try sh(#"uri="\#(uri)"; sed -i 's|URI="[^"]*"|URI="'"$uri"'"|' index.m3u8"#, in: dir)
    }

    /// rfc8216bis `METHOD=AES-256` (AES-256-CBC, PKCS7, explicit IV) built by hand with openssl: a 32-byte key
    /// fetched from `k256.key`; the clear segments stay in `clear/` for comparison.
    public static func aes256(into dir: URL, seconds: Int = 4) throws {
        try sh(
            """
            mkdir -p clear
            ffmpeg -v error -y \(source) -t \(seconds) -c:v libx264 -preset ultrafast -g 50 -sc_threshold 0 -c:a \
            aac -b:a 64k \
              -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_filename 'clear/seg%03d.ts' clear/index.m3u8
            openssl rand 32 > k256.key; iv=$(openssl rand -hex 16)
            {
              echo '#EXTM3U'; echo '#EXT-X-VERSION:3'; echo '#EXT-X-TARGETDURATION:3'; echo '#EXT-X-PLAYLIST-TYPE:VOD'
              echo "#EXT-X-KEY:METHOD=AES-256,URI=\"k256.key\",IV=0x$iv"
              for f in $(grep -v '^#' clear/index.m3u8); do
                openssl enc -aes-256-cbc -K "$(od -An -tx1 k256.key | tr -d ' \\n')" -iv "$iv" -in clear/$f -out e-$f
                grep -B1 -x "$f" clear/index.m3u8 | head -n 1
                echo "e-$f"
              done
              echo '#EXT-X-ENDLIST'
            } > index.m3u8
            echo "$iv" > iv.hex
            """, in: dir)
    }

    /// fMP4 whose init section is encrypted too, as Shaka Player's `hls-aes-256` test title is (issue #46): the
    /// `EXT-X-KEY` comes before the `EXT-X-MAP`, so (RFC 8216 §4.3.2.4) the key applies to the init section as
    /// well as to every segment. `method` is `AES-128`, `AES-256` (CBC) or `AES-256-CTR`, made with openssl over
    /// ffmpeg's clear fMP4 (kept in `clear/`); the key is `k.key`, the IV in `iv.hex`.
    public static func fmp4EncryptedMap(into dir: URL, method: String, seconds: Int = 4) throws {
        let (bytes, cipher) =
            switch method {
            case "AES-128": (16, "aes-128-cbc")
            case "AES-256": (32, "aes-256-cbc")
            default: (32, "aes-256-ctr")
            }
        try sh(
            """
            mkdir -p clear
            (cd clear && ffmpeg -v error -y \(source) -t \(seconds) -c:v libx264 -preset ultrafast -g 50 \
              -sc_threshold 0 -c:a aac -b:a 64k -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_type fmp4 \
              -hls_segment_filename 'seg%03d.m4s' index.m3u8)
            openssl rand \(bytes) > k.key; iv=$(openssl rand -hex 16); echo "$iv" > iv.hex
            key=$(od -An -tx1 k.key | tr -d ' \\n')
            openssl enc -\(cipher) -K "$key" -iv "$iv" -in clear/init.mp4 -out e-init.mp4
            {
              echo '#EXTM3U'; echo '#EXT-X-VERSION:7'; echo '#EXT-X-TARGETDURATION:3'; echo '#EXT-X-PLAYLIST-TYPE:VOD'
              echo "#EXT-X-KEY:METHOD=\(method),URI=\"k.key\",IV=0x$iv"
              echo '#EXT-X-MAP:URI="e-init.mp4"'
              for f in $(grep -v '^#' clear/index.m3u8); do
                openssl enc -\(cipher) -K "$key" -iv "$iv" -in clear/$f -out e-$f
                grep -B1 -x "$f" clear/index.m3u8 | head -n 1
                echo "e-$f"
              done
              echo '#EXT-X-ENDLIST'
            } > index.m3u8
            """, in: dir)
    }

    /// AES-128 built by hand as real packagers do: two keys rotating every two segments, no IV attribute
    /// (the IV is the media sequence number), a media sequence starting at 7, URIs with query strings.
    public static func aesRotatingNoIV(into dir: URL, seconds: Int = 8) throws {
        try sh(
            """
            mkdir -p clear
            ffmpeg -v error -y \(source) -t \(seconds) -c:v libx264 -preset ultrafast -g 50 -sc_threshold 0 -c:a \
            aac -b:a 64k \
              -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_filename 'clear/seg%03d.ts' clear/index.m3u8
            openssl rand 16 > k0.key; openssl rand 16 > k1.key
            {
              echo '#EXTM3U'; echo '#EXT-X-VERSION:3'; echo '#EXT-X-TARGETDURATION:3'; echo '#EXT-X-MEDIA-SEQUENCE:7'
              echo '#EXT-X-PLAYLIST-TYPE:VOD'
              n=0
              for f in $(grep -v '^#' clear/index.m3u8); do
                seq=$((n + 7)); k=$(( (n / 2) % 2 ))
                if [ $((n % 2)) -eq 0 ]; then echo "#EXT-X-KEY:METHOD=AES-128,URI=\\"k$k.key?session=xyz&n=$n\\""; fi
                iv=$(printf '%032x' $seq)
                openssl enc -aes-128-cbc -K "$(od -An -tx1 k$k.key | tr -d " \\n")" -iv "$iv" -in clear/$f -out \
            enc-$n.ts
                grep -B1 -x "$f" clear/index.m3u8 | head -n 1
                echo "enc-$n.ts?token=a%2Fb&seq=$seq"
                n=$((n + 1))
              done
              echo '#EXT-X-ENDLIST'
            } > index.m3u8
            rm -r clear
            """, in: dir)
    }

    /// AES-128 whose key is delivered by a W3C Clear Key license server (`KEYFORMAT="org.w3.clearkey"`,
    /// `KEYID`). Leaves the clear segments in `clear/` (for comparison) and the server's key table in
    /// `clearkey-policy.json`.
    public static func clearKey(into dir: URL, seconds: Int = 6) throws {
        try sh(
            """
            mkdir -p clear
            ffmpeg -v error -y \(source) -t \(seconds) -c:v libx264 -preset ultrafast -g 50 -sc_threshold 0 -c:a \
            aac -b:a 64k \
              -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_filename 'clear/seg%03d.ts' clear/index.m3u8
            key=$(openssl rand -hex 16); kid=$(openssl rand -hex 16); iv=$(openssl rand -hex 16)
            {
              echo '#EXTM3U'; echo '#EXT-X-VERSION:5'; echo '#EXT-X-TARGETDURATION:3'; echo '#EXT-X-PLAYLIST-TYPE:VOD'
              echo "#EXT-X-KEY:METHOD=AES-128,URI=\"/clearkey\",KEYFORMAT=\"org.w3.clearkey\",\
            KEYFORMATVERSIONS=\"1\",KEYID=0x$kid,IV=0x$iv"
              for f in $(grep -v '^#' clear/index.m3u8); do
                openssl enc -aes-128-cbc -K "$key" -iv "$iv" -in clear/$f -out ck-$f
                grep -B1 -x "$f" clear/index.m3u8 | head -n 1
                echo "ck-$f"
              done
              echo '#EXT-X-ENDLIST'
            } > index.m3u8
            printf '{"clearkeys": {"%s": "%s"}}' "$kid" "$key" > clearkey-policy.json
            """, in: dir)
    }
}
