import Foundation

/// What one `stat(2)` says of a path: the playback servers' only question to the file system before serving a
/// file (Foundation's `fileExists` plus `attributesOfItem` cost several calls and allocations per request).
public struct FileStat: Sendable, Equatable {
    public var isDirectory: Bool
    public var size: Int
    /// Modification time, whole seconds since 1970 (what `ETag` and `Last-Modified` carry).
    public var modified: Int

    public init(isDirectory: Bool, size: Int, modified: Int) {
        self.isDirectory = isDirectory
        self.size = size
        self.modified = modified
    }

    /// The path's status, following symbolic links; nil when it does not exist or cannot be read.
    public static func of(_ path: String) -> FileStat? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStat(
            isDirectory: (info.st_mode & S_IFMT) == S_IFDIR, size: Int(info.st_size),
            modified: Int(info.st_mtim.tv_sec))
    }

    /// The modification time as a `Date`.
    public var modifiedDate: Date { Date(timeIntervalSince1970: Double(modified)) }
}
