import Foundation
import StowageProtocol

extension TitlePath {
    /// The file `relative` names inside `root`, or nil when the name is not a safe served name or it would
    /// resolve (through symbolic links too) outside `root`: what a playback server may open.
    public static func resolve(_ relative: String, in root: URL) -> URL? {
        guard isSafe(relative, for: .served) else { return nil }
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
}
