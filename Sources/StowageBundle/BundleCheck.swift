/// The pure import check: a manifest against what was found in the bundle folder. The first problem wins, in a
/// fixed order a person can follow — unsafe or repeated paths in the manifest, then files missing (manifest
/// order), files extra (sorted), sizes, and last hashes (the only step that reads every byte).
public enum BundleCheck {
    /// A file found on disk: its path under the bundle folder, its size and, once read, its SHA-256.
    public struct Found: Sendable, Equatable {
        public var path: String
        public var size: Int64
        public var sha256: String?

        public init(path: String, size: Int64, sha256: String? = nil) {
            self.path = path
            self.size = size
            self.sha256 = sha256
        }
    }

    /// The first problem of the listing (names and sizes only), or nil: cheap, so it runs before any byte is read.
    public static func listing(_ manifest: BundleManifest, found: [Found]) -> BundleProblem? {
        var listed = Set<String>()
        for file in manifest.files {
            guard BundleLayout.isSafe(file.path) else {
                return BundleProblem(.malformed, file: BundleLayout.manifestName, "names an unsafe path \(file.path)")
            }
            guard listed.insert(file.path).inserted else {
                return BundleProblem(.malformed, file: BundleLayout.manifestName, "lists \(file.path) twice")
            }
        }
        let sizes = Dictionary(found.map { ($0.path, $0.size) }, uniquingKeysWith: { first, _ in first })
        if let missing = manifest.files.first(where: { sizes[$0.path] == nil }) {
            return BundleProblem(.missing, file: missing.path, "is listed in the bundle but not in its folder")
        }
        if let extra = found.map(\.path).filter({ !listed.contains($0) }).sorted().first {
            return BundleProblem(.extra, file: extra, "is in the bundle folder but not listed in bundle.json")
        }
        for file in manifest.files where sizes[file.path] != file.size {
            return BundleProblem(
                .size, file: file.path, "is \(sizes[file.path] ?? 0) bytes; the bundle says \(file.size)")
        }
        return nil
    }

    /// The problem of one file's bytes, or nil when its SHA-256 is the manifest's.
    public static func content(_ file: BundleManifest.File, sha256: String) -> BundleProblem? {
        sha256.lowercased() == file.sha256.lowercased()
            ? nil : BundleProblem(.hash, file: file.path, "has SHA-256 \(sha256); the bundle says \(file.sha256)")
    }

    /// The whole check over files whose hashes are known: the listing, then each file's content.
    public static func check(_ manifest: BundleManifest, found: [Found]) -> BundleProblem? {
        if let problem = listing(manifest, found: found) { return problem }
        let hashes = Dictionary(found.map { ($0.path, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        for file in manifest.files {
            guard let hash = hashes[file.path] ?? nil else {
                return BundleProblem(.io, file: file.path, "was not read")
            }
            if let problem = content(file, sha256: hash) { return problem }
        }
        return nil
    }
}
