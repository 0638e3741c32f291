import Foundation
import GRDB
import StowageProtocol

extension Store {
    /// Stores a resolved plan in one transaction; every resource starts `pending`.
    public func savePlan(token: String, plan: ResolvedPlan) throws {
        try db.write { db in
            guard var title = try db.fetchOne(TitleRecord.self, key: token) else { return }
            try db.execute("DELETE FROM rendition WHERE token = ?", [token])
            try db.execute("DELETE FROM resource WHERE token = ?", [token])
            for (i, r) in plan.renditions.enumerated() {
                var record = RenditionRecord(
                    id: nil, token: token, position: i, kind: r.kind, sourceURL: r.sourceURL,
                    localPath: r.localPath, playlist: r.playlist, language: r.language)
                try db.insert(&record)
            }
            // One prepared statement for every file (a plan may hold tens of thousands): the record insert
            // builds its SQL and a persistence container per row, several times the cost of SQLite's own work.
            let insert = """
                INSERT INTO resource (token, position, rendition, kind, url, rangeOffset, rangeLength, localPath,
                container, encrypted, duration, state, attempts, alternates, cipherKey, cipherIV) VALUES
                """
            let pending = ResourceState.pending.rawValue
            let rows = plan.resources.enumerated().map { i, r -> [(any DatabaseValueConvertible)?] in
                let alternates = r.alternates.flatMap { $0.isEmpty ? nil : $0.joined(separator: "\n") }
                return [
                    token, i, r.rendition, r.kind.rawValue, r.url, r.rangeOffset, r.rangeLength, r.localPath,
                    r.container.rawValue, r.encrypted, r.duration, pending, alternates, r.cipher?.key, r.cipher?.iv,
                ]
            }
            try db.insertRows(insert, "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)", rows)
            try db.execute("DELETE FROM contentKey WHERE token = ?", [token])
            for (i, k) in plan.keys.enumerated() {
                try db.insert(
                    ContentKeyRecord(
                        token: token, position: i, uri: k.uri, method: k.method, wrapped: nil,
                        keyFormat: k.keyFormat, keyID: k.keyID))
            }
            try db.execute("DELETE FROM bookmark WHERE token = ? AND kind = ?", [token, Bookmark.Kind.index])
            for b in plan.bookmarks {
                try db.upsert(BookmarkRecord(token: token, kind: .index, position: b.position, label: b.label))
            }
            title.planned = true
            title.bytesEstimate = plan.bytesEstimate
            title.masterPlaylist = plan.masterPlaylist
            title.manifestName = plan.manifestName
            title.protection = plan.protection
            title.clipStored = plan.clip
            title.pathways = plan.pathways
            try db.update(title)
        }
    }

    /// Fresh URLs from a re-resolution of a title's playlists (signed URLs that expired): every resource not
    /// yet verified takes the URL of the new plan's resource with the same local path (Stowage names files by
    /// position), key URIs and rendition sources are matched by position. Files, states and hashes are kept.
    /// Returns the number of resources whose URL changed.
    @discardableResult
    public func refreshURLs(token: String, plan: ResolvedPlan) throws -> Int {
        try db.write { db in
            let fresh = Dictionary(plan.resources.map { ($0.localPath, $0.url) }, uniquingKeysWith: { a, _ in a })
            var changed = 0
            for var r in try db.fetchAll(ResourceRecord.all().forTitle(token)) {
                guard let url = fresh[r.localPath], url != r.url else { continue }
                r.url = url
                try db.update(r)
                changed += 1
            }
            for (i, rendition) in plan.renditions.enumerated() {
                try db.execute(
                    "UPDATE rendition SET sourceURL = ? WHERE token = ? AND position = ?",
                    [rendition.sourceURL, token, i])
            }
            for (i, key) in plan.keys.enumerated() {
                try db.execute("UPDATE contentKey SET uri = ? WHERE token = ? AND position = ?", [key.uri, token, i])
            }
            return changed
        }
    }

    /// The offline playlists of a title, in plan order.
    public func renditions(token: String) throws -> [RenditionRecord] {
        try db.read { try $0.fetchAll(RenditionRecord.all().forTitle(token).order(RenditionRecord.Columns.position)) }
    }

    /// The content keys of a title, in order.
    public func keys(token: String) throws -> [ContentKeyRecord] {
        try db.read { db in
            try db.fetchAll(ContentKeyRecord.all().forTitle(token).order(ContentKeyRecord.Columns.position))
        }
    }

    /// Stores wrapped keys (position -> wrapped bytes) in one transaction.
    public func saveWrappedKeys(token: String, _ wrapped: [Int: Data]) throws {
        try db.write { db in
            for (position, data) in wrapped {
                try db.execute(
                    "UPDATE contentKey SET wrapped = ? WHERE token = ? AND position = ?", [data, token, position])
            }
        }
    }
}
