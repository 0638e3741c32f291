import Foundation

/// Path safety for files served from a title directory: a request path never leaves it.
public enum TitlePath {
    /// The relative path (decoded, `a/b.ts`) a raw request sub-path names, or nil when it tries anything: `..`,
    /// a part starting with `.`, an encoded slash or backslash (`%2F`, `%5C`), a backslash, NUL, bad
    /// percent-encoding. Empty parts are dropped; the result may be empty (the directory itself).
    public static func relative(rawPath: String) -> String? {
        let path = rawPath.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let lower = path.lowercased()
        guard !lower.contains("%2f"), !lower.contains("%5c"), !lower.contains("%00"), !path.contains("\\") else {
            return nil
        }
        guard let decoded = String(path).removingPercentEncoding else { return nil }
        guard !decoded.contains("\0"), !decoded.contains("\\") else { return nil }
        let parts = decoded.split(separator: "/", omittingEmptySubsequences: true)
        guard !parts.contains(where: { $0 == ".." || $0 == "." || $0.hasPrefix(".") }) else { return nil }
        return parts.joined(separator: "/")
    }

    /// The file `relative` names inside `root`, or nil when it would resolve (through symbolic links too)
    /// outside it.
    public static func resolve(_ relative: String, in root: URL) -> URL? {
        guard isPlainRelative(relative) else { return nil }
        // A root not created yet (a title still downloading) has nothing on disk to escape through.
        let base = realPath(root.standardizedFileURL.path) ?? root.standardizedFileURL.path
        var url = URL(fileURLWithPath: base)
        for part in relative.split(separator: "/") { url.appendPathComponent(String(part)) }
        // The deepest part that exists, with every symbolic link resolved, must still be inside the root.
        var existing = url.path, missing: [String] = []
        while realPath(existing) == nil, existing.count > base.count {
            missing.insert((existing as NSString).lastPathComponent, at: 0)
            existing = (existing as NSString).deletingLastPathComponent
        }
        let resolved = realPath(existing) ?? existing
        let full = ([resolved] + missing).joined(separator: "/")
        let prefix = base.hasSuffix("/") ? base : base + "/"
        return full.hasPrefix(prefix) ? url : nil
    }

    /// `realpath(3)`: the absolute path with every symbolic link resolved, or nil when it does not exist.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A decoded relative path (it may contain `%` literally) with no unsafe part.
    private static func isPlainRelative(_ relative: String) -> Bool {
        guard !relative.contains("\0"), !relative.contains("\\") else { return false }
        let parts = relative.split(separator: "/", omittingEmptySubsequences: true)
        return !parts.isEmpty && !parts.contains(where: { $0 == ".." || $0.hasPrefix(".") })
    }
}
