import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What fetches leave in a title's folder when they stop short: `.part` files (bytes kept to resume), their
/// `.part.meta` resume records (filesystems without extended attributes), and a `.new` file whose rename over an
/// earlier copy was cut short. None of it belongs to a finished title.
public enum FetchLeftovers {
    /// Whether a file of this name is a fetch's leftover.
    public static func isLeftover(_ name: String) -> Bool {
        name.hasSuffix(".part") || name.hasSuffix(".part.meta") || name.hasSuffix(".new")
    }

    /// Removes every leftover under `folder`, walking with `readdir` and its entry types: a title of ten
    /// thousand files is listed without a `stat` each. Returns how many were removed.
    @discardableResult
    public static func remove(under folder: String) -> Int {
        guard let dir = opendir(folder) else { return 0 }
        defer { closedir(dir) }
        var removed = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            guard name != "." && name != ".." else { continue }
            let path = folder + "/" + name
            var isFolder = Int32(entry.pointee.d_type) == DT_DIR
            if Int32(entry.pointee.d_type) == DT_UNKNOWN {  // a filesystem that does not say: ask
                var st = stat()
                isFolder = lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
            }
            if isFolder {
                removed += remove(under: path)
            } else if isLeftover(name), unlink(path) == 0 {
                removed += 1
            }
        }
        return removed
    }
}
