import Foundation
import StowageProtocol

extension TitlePath {
    /// What a title folder holds under a served name, as far as a playback server may use it.
    public enum Served: Sendable, Equatable {
        /// A regular file with exactly one link, reached through no symbolic link: its path and status.
        case file(path: String, stat: FileStat)
        /// Nothing there yet (a title still downloading: a streaming source may provide it): the path it will
        /// have. Every part on the way that exists is a real folder.
        case missing(path: String)
        /// Never served: an unsafe name, a symbolic link anywhere from the title folder down (the folder itself
        /// included), a folder, a file with more than one link, or anything that is not a regular file.
        case refused
    }

    /// The one rule of what the playback servers (the gateway's router and hot path, `stowctl play`) may serve
    /// from the title folder `root` under `relative`.
    ///
    /// Someone who can write into a title's folder must not make the gateway serve a file from elsewhere: a
    /// symbolic link (to a file, a folder, or the title folder replaced by one) points anywhere, and a hard link
    /// is a second name of a file that may live outside the folder. So every part from the title folder down is
    /// looked at with `lstat` on every request (nothing kept: a folder swapped for a link is refused at once,
    /// and served again as soon as it is a real folder), and the file must be regular with `st_nlink == 1`
    /// (what the fetchers write: a new inode, renamed into place). The folders above `root` (the titles folder
    /// in `STOWAGE_HOME`) are the operator's and may be links. A name holds no `..` (``isSafe(_:for:)``), so
    /// with no link on the way the file is inside `root`. Cost: one `lstat` per part of the name, plus one for
    /// the folder.
    public static func served(_ relative: String, inRoot root: String) -> Served {
        guard isSafe(relative, for: .served) else { return .refused }
        let base = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        let path = base + "/" + relative
        var name = Array(path.utf8CString)
        var info = stat()
        // Each part's path is `path` cut at the slash after the folder's name, at each later slash, and at its end.
        for end in base.utf8.count..<name.count where name[end] == 0x2F || name[end] == 0 {
            let last = name[end] == 0
            let kept = name[end]
            name[end] = 0
            defer { name[end] = kept }
            guard lstat(name, &info) == 0 else { return errno == ENOENT ? .missing(path: path) : .refused }
            let kind = info.st_mode & S_IFMT
            if !last {
                guard kind == S_IFDIR else { return .refused }
            } else {
                guard kind == S_IFREG, info.st_nlink == 1 else { return .refused }
            }
        }
        return .file(path: path, stat: FileStat(info))
    }
}
