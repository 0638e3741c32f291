import CSystemShims
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a `.part` file was fetched from, so a later fetch can resume it only if the source is unchanged.
struct PartMeta: Codable, Equatable {
    var url: String
    var rangeOffset: Int64?
    var validator: String?
}

extension PartFile {
    /// The resume record: an extended attribute of the `.part` file itself (no second file to create, sync
    /// or delete), or, on a filesystem without them, the `<path>.part.meta` file beside it.
    mutating func loadMeta() -> PartMeta? {
        var value = [UInt8](repeating: 0, count: 8192)
        let n = value.withUnsafeMutableBytes { stowage_fgetxattr(fd, Self.metaAttribute, $0.baseAddress, 8192) }
        if n > 0, let meta = try? JSONDecoder().decode(PartMeta.self, from: Data(value[0..<n])) {
            metaStore = .attribute
            return meta
        }
        guard let data = FileManager.default.contents(atPath: metaPath) else { return nil }
        metaStore = .file
        return try? JSONDecoder().decode(PartMeta.self, from: data)
    }

    /// Records where the bytes come from, before the first of them is written.
    mutating func saveMeta(_ meta: PartMeta) {
        guard let data = try? JSONEncoder().encode(meta) else { return }
        let set = data.withUnsafeBytes { stowage_fsetxattr(fd, Self.metaAttribute, $0.baseAddress, UInt($0.count)) }
        if set == 0 {
            metaStore = .attribute
        } else if (try? data.write(to: URL(fileURLWithPath: metaPath), options: .atomic)) != nil {
            metaStore = .file
        }
    }

    /// Forgets the resume record (the file is whole, or its bytes no longer fit the source).
    mutating func removeMeta() {
        switch metaStore {
        case .attribute: _ = stowage_fremovexattr(fd, Self.metaAttribute)
        case .file: unlink(metaPath)
        case nil: break
        }
        metaStore = nil
    }
}
