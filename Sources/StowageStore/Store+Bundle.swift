import Foundation
import GRDB

extension Store {
    /// One file of an imported bundle, as the import check found it (size and SHA-256 of the bytes copied).
    public struct ImportedFile: Sendable, Equatable {
        public var size: Int64
        public var sha256: String

        public init(size: Int64, sha256: String) {
            self.size = size
            self.sha256 = sha256
        }
    }

    /// Marks the resources of a title taken in from a bundle (`stowctl import`): each one whose file the bundle
    /// carried (by local path) is `verified` with the size and hash the import checked, so it is never fetched and
    /// later checks at rest compare against them; one the bundle had no file for was a gap on the exporting box
    /// and stays one here. One statement per resource inside one transaction (the caller's batch).
    public func markImported(token: String, files: [String: ImportedFile]) throws {
        try db.write { db in
            let sql = """
                UPDATE resource SET state = ?, bytes = ?, contentLength = ?, sha256 = ?, lastError = NULL
                WHERE id = ?
                """
            for resource in try db.fetchAll(ResourceRecord.all().forTitle(token)) {
                guard let id = resource.id else { continue }
                if let file = files[resource.localPath] {
                    try db.execute(sql, [ResourceState.verified.rawValue, file.size, file.size, file.sha256, id])
                } else {
                    try db.execute(sql, [ResourceState.gap.rawValue, nil, nil, nil, id])
                }
            }
        }
    }

    /// The token a `--move` bundle of export `exportID` was taken in as on this box, or nil if never.
    public func importedExport(_ exportID: String) throws -> String? {
        try db.read { try $0.value(String.self, "SELECT token FROM bundleImport WHERE exportID = ?", [exportID]) }
    }

    /// Remembers that export `exportID` (a `--move` bundle from box `fromBox`) was taken in as `token`; a second
    /// one of the same id fails on the primary key, so two imports racing cannot both take it.
    public func rememberImport(exportID: String, token: String, fromBox: String, at time: Double) throws {
        try db.write { db in
            try db.execute(
                "INSERT INTO bundleImport (exportID, token, fromBox, importedAt) VALUES (?, ?, ?, ?)",
                [exportID, token, fromBox, time])
        }
    }
}
