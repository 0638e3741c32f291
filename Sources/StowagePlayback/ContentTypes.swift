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
    public static func forPath(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return forExtension("") }
        return forExtension(String(name[name.index(after: dot)...]))
    }

    /// Whether a path names a playlist or manifest (rewritten when served under a prefix or with a query).
    public static func isPlaylist(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".m3u8") || lower.hasSuffix(".mpd")
    }
}
