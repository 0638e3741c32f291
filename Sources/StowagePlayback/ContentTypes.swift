/// The `Content-Type` of each kind of file an offline copy holds.
public enum ContentTypes {
    /// The media type for a file name extension (case-insensitive); `application/octet-stream` when unknown.
    public static func forExtension(_ ext: String) -> String {
        switch ext.lowercased() {
        case "m3u8": "application/vnd.apple.mpegurl"
        case "mpd": "application/dash+xml"
        case "ts": "video/mp2t"
        case "mp4", "m4s", "m4v": "video/mp4"
        case "m4a": "audio/mp4"
        case "aac": "audio/aac"
        case "vtt", "webvtt": "text/vtt"
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "webp": "image/webp"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }

    /// The media type for a path, from its last extension.
    public static func forPath(_ path: String) -> String { forExtension(fileExtension(path)) }

    /// Whether a path names a playlist or manifest (rewritten when served under a prefix or with a query).
    public static func isPlaylist(_ path: String) -> Bool {
        let ext = fileExtension(path)
        return ext == "m3u8" || ext == "mpd"
    }

    /// The last part of a path (`video/seg1.ts` → `seg1.ts`).
    public static func fileName(_ path: String) -> Substring {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path[...] }
        return path[path.utf8.index(after: slash)...]
    }

    /// The file name's last extension, lowercased (`a/B.TS` → `ts`; none → empty). Byte scans: it runs for
    /// every file served.
    public static func fileExtension(_ path: String) -> String {
        let name = fileName(path)
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")) else { return "" }
        let ext = name[name.utf8.index(after: dot)...]
        return ext.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") })
            ? ext.lowercased() : String(ext)
    }
}
