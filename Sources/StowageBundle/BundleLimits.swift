/// How large a bundle this box reads, checked before anything large is read or added: `bundle.json` is read whole
/// (its signature covers every byte), so its size is checked on the file system first; the sizes it lists are
/// added with overflow checks against a ceiling, so a manifest cannot make a total that traps or wraps.
public enum BundleLimits {
    /// The largest `bundle.json` read: 64 MiB. A manifest takes about 500 bytes per file (its plan entry and its
    /// listing), so this holds about 130,000 files — a 24-hour title of 2-second segments in three renditions.
    public static let manifestBytes: Int64 = 64 << 20

    /// The most bytes a bundle may list in all: 64 TiB, past any title a box holds, far below `Int64.max`.
    public static let totalBytes: Int64 = 64 << 40

    /// The problem of a `bundle.json` of `size` bytes, or nil when it may be read.
    public static func manifestProblem(size: Int64) -> BundleProblem? {
        guard size > manifestBytes else { return nil }
        return BundleProblem(
            .limit, file: BundleLayout.manifestName,
            "is \(size) bytes; this box reads a manifest of at most \(manifestBytes) bytes (64 MiB)")
    }

    /// The bytes `files` list in all; a negative size, or a sum past ``totalBytes``, is a problem naming
    /// `files[].size`.
    public static func total(_ files: [BundleManifest.File]) throws(BundleProblem) -> Int64 {
        var total: Int64 = 0
        for file in files {
            guard file.size >= 0 else {
                throw BundleProblem(
                    .malformed, file: BundleLayout.manifestName,
                    "files[].size of \(file.path.prefix(200)) is \(file.size): a size is never negative")
            }
            let (sum, overflow) = total.addingReportingOverflow(file.size)
            guard !overflow, sum <= totalBytes else {
                throw BundleProblem(
                    .limit, file: BundleLayout.manifestName,
                    "files[].size adds up past \(totalBytes) bytes (64 TiB), more than any title: not a real bundle")
            }
            total = sum
        }
        return total
    }
}
