import Foundation

/// What one `lstat(2)` says of a served file (``TitlePath/served(_:inRoot:)``): the playback servers' only question
/// to the file system before serving a file (Foundation's `fileExists` plus `attributesOfItem` cost several calls
/// and allocations per request).
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

    /// What `stat(2)` or `lstat(2)` filled in.
    init(_ info: stat) {
        self.init(
            isDirectory: (info.st_mode & S_IFMT) == S_IFDIR, size: Int(info.st_size),
            modified: Int(info.st_mtim.tv_sec))
    }

    /// The modification time as a `Date`.
    public var modifiedDate: Date { Date(timeIntervalSince1970: Double(modified)) }
}
