import Foundation

/// A bundle on disk: the folder `stowctl export` writes and `stowctl import` reads. Writing copies each file with
/// ``StreamingCopy`` and signs the manifest; reading verifies the signature, the listing and every byte while
/// copying into a staging folder, which is removed on any problem — all or nothing.
public struct BundleFolder: Sendable {
    public let root: URL

    public init(root: URL) { self.root = root }

    /// Every regular file under the folder except `bundle.json` and `bundle.sig`, with its size. A symbolic link
    /// or other special file counts as an extra: a bundle holds plain files only.
    public func scan() throws(BundleProblem) -> [BundleCheck.Found] {
        let base = root.standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(atPath: base) else {
            throw BundleProblem(.io, file: base, "cannot be listed")
        }
        var found: [BundleCheck.Found] = []
        while let relative = walker.nextObject() as? String {
            let attributes = walker.fileAttributes ?? [:]
            let type = attributes[.type] as? FileAttributeType
            if type == .typeDirectory { continue }
            if relative == BundleLayout.manifestName || relative == BundleLayout.signatureName { continue }
            guard type == .typeRegular else {
                found.append(.init(path: relative, size: -1))
                continue
            }
            found.append(.init(path: relative, size: (attributes[.size] as? NSNumber)?.int64Value ?? 0))
        }
        return found
    }

    /// Writes the bundle: each `(source, path)` copied to `path` under the folder (created, must be empty or
    /// absent), hashed as it is written; then `bundle.json` from `makeManifest(files)` and its `bundle.sig`.
    public func write(
        files: [(source: URL, path: String)], identity: BoxIdentity,
        makeManifest: ([BundleManifest.File]) -> BundleManifest, progress: (Int) -> Void = { _ in }
    ) throws -> BundleManifest {
        let manager = FileManager.default
        try manager.createDirectory(at: root, withIntermediateDirectories: true)
        if let existing = try? manager.contentsOfDirectory(atPath: root.path), !existing.isEmpty {
            throw BundleProblem(.io, file: root.path, "is not empty: export into a new or empty folder")
        }
        var listed: [BundleManifest.File] = []
        for (source, path) in files {
            guard BundleLayout.isSafe(path) else { throw BundleProblem(.malformed, file: path, "is not a safe path") }
            let copied = try StreamingCopy.copy(source, to: root.appendingPathComponent(path), progress: progress)
            listed.append(.init(path: path, size: copied.size, sha256: copied.sha256))
        }
        let manifest = makeManifest(listed)
        let bytes = try manifest.encoded()
        try bytes.write(to: root.appendingPathComponent(BundleLayout.manifestName))
        try Data(BundleSignature.sign(bytes, with: identity).utf8)
            .write(to: root.appendingPathComponent(BundleLayout.signatureName))
        return manifest
    }

    /// Verifies the bundle and copies it into `staging` (created; must not exist). Returns the manifest once every
    /// file is in `staging` with the bytes the manifest says. On any problem `staging` is removed and the problem
    /// names the file — nothing of the bundle stays.
    ///
    /// Before anything large is read: `bundle.json`'s size on the file system (``BundleLimits``), then its
    /// signature and signer, then the plan's local paths (``BundleNaming``) and the listed sizes' total, which
    /// `total` is told once it is known (the job's bar).
    public func stage(
        into staging: URL, trusted: Set<BoxPublicKey>, trustAny: Bool, total: (Int64) -> Void = { _ in },
        progress: (Int) -> Void = { _ in }
    ) throws(BundleProblem) -> BundleManifest {
        let manifestURL = root.appendingPathComponent(BundleLayout.manifestName)
        let attributes = try? FileManager.default.attributesOfItem(atPath: manifestURL.path)
        guard let attributes, (attributes[.type] as? FileAttributeType) == .typeRegular else {
            throw BundleProblem(.missing, file: BundleLayout.manifestName, "is not a file in \(root.path)")
        }
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        if let problem = BundleLimits.manifestProblem(size: size) { throw problem }
        guard let bytes = FileManager.default.contents(atPath: manifestURL.path) else {
            throw BundleProblem(.io, file: BundleLayout.manifestName, "cannot be read in \(root.path)")
        }
        // Read once, then checked on what was read: a file grown since the size check is refused all the same.
        if let problem = BundleLimits.manifestProblem(size: Int64(bytes.count)) { throw problem }
        let signature = Self.smallFile(root.appendingPathComponent(BundleLayout.signatureName))
            .map { String(decoding: $0, as: UTF8.self) }
        let manifest = try BundleSignature.verify(
            manifestBytes: bytes, signatureText: signature, trusted: trusted, trustAny: trustAny)
        total(try BundleLimits.total(manifest.files))
        if let problem = BundleNaming.problem(manifest) { throw problem }
        if let problem = BundleCheck.listing(manifest, found: try scan()) { throw problem }
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        } catch {
            throw BundleProblem(.io, file: staging.path, "cannot be created: \(error.localizedDescription)")
        }
        do throws(BundleProblem) {
            for file in manifest.files {
                let copied: (sha256: String, size: Int64)
                do {
                    copied = try StreamingCopy.copy(
                        root.appendingPathComponent(file.path), to: staging.appendingPathComponent(file.path),
                        progress: progress)
                } catch {
                    throw BundleProblem(.io, file: file.path, "cannot be copied: \(error.localizedDescription)")
                }
                guard copied.size == file.size else {
                    throw BundleProblem(.size, file: file.path, "changed while read: \(copied.size) bytes")
                }
                if let problem = BundleCheck.content(file, sha256: copied.sha256) { throw problem }
            }
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
        return manifest
    }

    /// `bundle.sig` is one line of base64 (88 characters): anything past 4 KiB is not one, and is not read whole.
    static func smallFile(_ url: URL) -> Data? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 4096)) ?? Data()
    }
}
