import Foundation

extension LivePlaylist {
    /// The root-relative paths of the segments' resources (the playlist served at request path `playlistPath`)
    /// and the indexes of the segments in each (several with byte ranges). URIs on other schemes are left out.
    public func segmentPaths(playlistPath: String) -> [String: [Int]] {
        var paths: [String: [Int]] = [:]
        for (index, segment) in segments.enumerated() {
            if let path = Self.rootPath(of: segment.uri, relativeTo: playlistPath) {
                paths[path, default: []].append(index)
            }
        }
        return paths
    }

    /// The path relative to the origin root that `uri` names, in a playlist at request path `playlistPath`:
    /// percent-decoded, `.` and `..` resolved, no leading slash. An http(s) URI gives its path (the origin
    /// assumes it is the host); nil for other schemes.
    public static func rootPath(of uri: String, relativeTo playlistPath: String) -> String? {
        let reference = String(uri.prefix { $0 != "?" && $0 != "#" })
        let scheme = reference.prefix { $0.isLetter || $0.isNumber || "+-.".contains($0) }
        let absolute = scheme.first?.isLetter == true && reference.dropFirst(scheme.count).hasPrefix(":")
        if absolute || reference.hasPrefix("//") {
            guard !absolute || ["http", "https"].contains(scheme.lowercased()),
                let parts = URLComponents(string: absolute ? reference : "http:" + reference)
            else { return nil }
            return requestPath(parts.percentEncodedPath)
        }
        if reference.hasPrefix("/") { return requestPath(reference) }
        let playlist = playlistPath.prefix { $0 != "?" }
        let directory = playlist.lastIndex(of: "/").map { String(playlist[...$0]) } ?? "/"
        return requestPath(directory + reference)
    }

    /// A request path (query ignored) as a path relative to the origin root: percent-decoded, `.` and `..`
    /// resolved, no leading slash.
    public static func requestPath(_ path: String) -> String {
        let plain = path.prefix { $0 != "?" && $0 != "#" }
        let decoded = String(plain).removingPercentEncoding ?? String(plain)
        var parts: [Substring] = []
        for part in decoded.split(separator: "/") {
            if part == "." { continue }
            if part == ".." {
                _ = parts.popLast()
                continue
            }
            parts.append(part)
        }
        return parts.joined(separator: "/")
    }
}
