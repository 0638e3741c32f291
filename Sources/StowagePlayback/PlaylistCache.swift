import Foundation
import Synchronization

/// Playlists as served, kept: a playlist is read and rewritten once per (file version, rewriter), not once per
/// request. The key holds the file's path, size and modification time, so a playlist rewritten on disk (a title
/// still downloading, a renewal) is read again; and the rewriter (the title's prefix and a signed URL's query),
/// so a bearer's devices share one entry and a signed URL gets its own. At most ``capacity`` entries: when full,
/// all are dropped (the cache only saves work).
public final class PlaylistCache: Sendable {
    private struct Key: Hashable {
        var path: String
        var size: Int
        var modified: Int
        var rewriter: PlaylistRewriter
    }

    /// The most entries kept.
    public let capacity: Int
    private let entries = Mutex<[Key: Data]>([:])

    public init(capacity: Int = 512) { self.capacity = capacity }

    /// The served bytes of the playlist at `path` (as `stat` says now), made by `make` when not kept.
    public func playlist(
        path: String, stat: FileStat, rewriter: PlaylistRewriter, make: () throws -> Data
    ) rethrows -> Data {
        let key = Key(path: path, size: stat.size, modified: stat.modified, rewriter: rewriter)
        if let hit = entries.withLock({ $0[key] }) { return hit }
        let data = try make()
        entries.withLock { entries in
            if entries.count >= capacity { entries = [:] }
            entries[key] = data
        }
        return data
    }

    /// How many playlists are kept.
    public var count: Int { entries.withLock { $0.count } }
}
