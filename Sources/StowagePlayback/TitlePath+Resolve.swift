import Foundation
import StowageProtocol
import Synchronization

extension TitlePath {
    /// The file `relative` names inside `root`, or nil when the name is not a safe served name or it would
    /// resolve (through symbolic links too) outside `root`: what a playback server may open.
    public static func resolve(_ relative: String, in root: URL) -> URL? {
        resolvePath(relative, inRoot: root.path).map { URL(fileURLWithPath: $0) }
    }

    /// ``resolve(_:in:)`` on paths: the path of the file `relative` names inside the folder `root`, or nil.
    ///
    /// It runs for every file a gateway serves, so it stays on strings, and the root's own real path is kept a
    /// few seconds (``RealRoots``): a file reached through no symbolic link costs one `lstat` per part of its name.
    public static func resolvePath(_ relative: String, inRoot root: String) -> String? {
        guard isSafe(relative, for: .served) else { return nil }
        // A root not created yet (a title still downloading) has nothing on disk to escape through.
        let base = RealRoots.shared.realPath(of: root)
        let prefix = base.hasSuffix("/") ? base : base + "/"
        let path = prefix + relative
        // The name holds no `..` and `base` is real: with no symbolic link on the way the file is inside.
        if noLinks(relative, under: prefix) { return path }
        if let real = realPath(path) { return real.hasPrefix(prefix) ? path : nil }
        // The deepest part that exists, with every symbolic link resolved, must still be inside the root.
        var existing = path, missing: [String] = []
        while realPath(existing) == nil, existing.count > base.count {
            missing.insert((existing as NSString).lastPathComponent, at: 0)
            existing = (existing as NSString).deletingLastPathComponent
        }
        let resolved = realPath(existing) ?? existing
        let full = ([resolved] + missing).joined(separator: "/")
        return full.hasPrefix(prefix) ? path : nil
    }

    /// Whether every part of `relative` exists under `prefix` and none is a symbolic link.
    private static func noLinks(_ relative: String, under prefix: String) -> Bool {
        // Each part's path is `prefix + relative` cut at a slash after the prefix, or at its end.
        var path = Array((prefix + relative).utf8CString)
        var info = stat()
        for end in prefix.utf8.count..<path.count where path[end] == 0x2F || path[end] == 0 {
            let kept = path[end]
            path[end] = 0
            defer { path[end] = kept }
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFLNK else { return false }
        }
        return true
    }

    /// `realpath(3)`: the absolute path with every symbolic link resolved, or nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// The real paths (`realpath(3)`) of title folders, each kept for a few seconds: every file served from a
/// folder is checked against it, and resolving the folder's own path again for each (a `readlink` per
/// component) cost as much as the file's. A folder moved or replaced by a link is seen within ``lifetime``;
/// until then a file under the new place fails the check (refused, never served from outside).
final class RealRoots: Sendable {
    static let shared = RealRoots()
    /// Seconds a folder's real path is kept.
    static let lifetime: Duration = .seconds(5)

    private struct Entry {
        var real: String
        var at: ContinuousClock.Instant
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// The real path of `root`; its standardized path (not kept) when it does not exist yet.
    func realPath(of root: String) -> String {
        let now = ContinuousClock.now
        if let entry = entries.withLock({ $0[root] }), now - entry.at < Self.lifetime { return entry.real }
        guard let real = TitlePath.realPath(root) else { return (root as NSString).standardizingPath }
        entries.withLock { entries in
            if entries.count >= 4096 { entries.removeAll(keepingCapacity: true) }
            entries[root] = Entry(real: real, at: now)
        }
        return real
    }
}
