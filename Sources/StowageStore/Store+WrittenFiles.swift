import Foundation
import GRDB
import StowageProtocol

extension Store {
    /// Adds files the box writes itself to a title (``PlannedResource/Kind/subtitleText``: `subtitles/<lang>.vtt`
    /// and `.srt`), each `fetched` with no length yet: a verify task writes it, then it is hashed, verified and
    /// counted like every other file. Returns the new rows.
    public func addWrittenFiles(
        token: String, paths: [String], kind: PlannedResource.Kind
    ) throws -> [ResourceRecord] {
        try db.write { db in
            let last = try db.value(Int.self, "SELECT MAX(position) FROM resource WHERE token = ?", [token])
            var out: [ResourceRecord] = []
            for (i, path) in paths.enumerated() {
                var record = ResourceRecord(
                    id: nil, token: token, position: (last ?? -1) + 1 + i, rendition: 0, kind: kind, url: "",
                    rangeOffset: nil, rangeLength: nil, localPath: path, container: .other, encrypted: false,
                    duration: 0, state: .fetched, attempts: 0, bytes: nil, sha256: nil, contentLength: nil,
                    lastError: nil)
                try db.insert(&record)
                out.append(record)
            }
            return out
        }
    }
}

extension Store {
    /// A title's files of one kind (the files it writes itself are few: status reads them for every title).
    public func resources(token: String, kind: PlannedResource.Kind) throws -> [ResourceRecord] {
        try db.read { db in
            try db.fetchAll(
                ResourceRecord.all().forTitle(token).filter(ResourceRecord.Columns.kind == kind.rawValue)
                    .order(ResourceRecord.Columns.position))
        }
    }
}
