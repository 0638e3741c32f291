import Foundation
import GRDB
import StowageProtocol

extension Store {
    /// The files of a title in playlist order, optionally only those in `state`.
    public func resources(token: String, state: ResourceState? = nil) throws -> [ResourceRecord] {
        try db.read { db in
            var request = ResourceRecord.all().forTitle(token)
            if let state { request = request.inState(state) }
            return try request.orderedByPosition().fetchAll(db)
        }
    }

    /// The resource with this id, or nil.
    public func resource(id: Int64) throws -> ResourceRecord? {
        try db.read { db in
            let statement = try db.cachedStatement(sql: "SELECT * FROM resource WHERE id = ?")
            return try ResourceRecord.fetchOne(statement, arguments: [id])
        }
    }

    /// The resources with these ids, by id (an id with no resource is left out): a fetch batch's files in one query.
    public func resources(ids: [Int64]) throws -> [Int64: ResourceRecord] {
        guard !ids.isEmpty else { return [:] }
        return try db.read { db in
            // A cached statement per list length (batches come in a few lengths): the query interface would build
            // and prepare the SQL anew for every batch.
            var byID: [Int64: ResourceRecord] = [:]
            for start in stride(from: 0, to: ids.count, by: 500) {  // well under SQLite's limit on parameters
                let part = ids[start..<min(start + 500, ids.count)]
                let marks = repeatElement("?", count: part.count).joined(separator: ",")
                let statement = try db.cachedStatement(sql: "SELECT * FROM resource WHERE id IN (\(marks))")
                let cursor = try ResourceRecord.fetchCursor(statement, arguments: StatementArguments(part))
                while let r = try cursor.next() { if let id = r.id { byID[id] = r } }
            }
            return byID
        }
    }

    /// The length a resource's byte range asks for (`.some(nil)`: the whole file), or nil if there is no such
    /// resource: what is checked for every file reported fetched, read without decoding the record.
    public func rangeLength(ofResource id: Int64) throws -> Int64?? {
        try db.read { db in
            let statement = try db.cachedStatement(sql: "SELECT rangeLength FROM resource WHERE id = ?")
            guard let row = try Row.fetchOne(statement, arguments: [id]) else { return nil }
            return .some(row[0] as Int64?)
        }
    }

    /// Saves every column of a resource.
    public func update(_ resource: ResourceRecord) throws {
        try db.write { try resource.update($0) }
    }

    /// Records a file that arrived hashed, checked and durable: `verified`, with its size, the length the origin
    /// announced and its SHA-256 (the per-segment write: one statement, no record encoding).
    public func markVerified(id: Int64, bytes: Int64, contentLength: Int64?, sha256: String) throws {
        try db.statement { db in
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE resource SET state = ?, bytes = ?, contentLength = ?, sha256 = ?, lastError = NULL
                    WHERE id = ?
                    """)
            try statement.execute(arguments: [ResourceState.verified.rawValue, bytes, contentLength, sha256, id])
        }
    }

    /// Sets every resource of a title back to `pending` (its files are gone), gaps excepted.
    public func resetResources(token: String) throws {
        try db.write { db in
            // Gaps stay gaps: there is nothing to fetch for them.
            _ = try ResourceRecord.all().forTitle(token).filter(ResourceRecord.Columns.state != ResourceState.gap)
                .updateAll(
                    db,
                    [
                        ResourceRecord.Columns.state.set(to: ResourceState.pending),
                        ResourceRecord.Columns.bytes.set(to: nil),
                        ResourceRecord.Columns.sha256.set(to: nil),
                    ])
        }
    }

    /// Bytes still to download for titles in `states`: each title's estimate less its verified bytes (never
    /// below zero), summed in one query (no title is decoded: `stats` answers at once with 100,000 titles). Sums are
    /// `TOTAL`s held to 9e18: SQLite's `SUM` fails the query on an integer overflow, and sizes come from outside.
    public func bytesRemaining(states: [TitleState]) throws -> Int64 {
        try db.read { db in
            let marks = states.map { _ in "?" }.joined(separator: ",")
            let sql = """
                SELECT CAST(
                    MIN(TOTAL(MAX(0, COALESCE(t.bytesEstimate, 0) - COALESCE(v.bytes, 0))), 9.0e18) AS INTEGER)
                FROM title t LEFT JOIN (
                    SELECT token, CAST(MIN(TOTAL(COALESCE(bytes, 0)), 9.0e18) AS INTEGER) AS bytes
                    FROM resource WHERE state = 'verified' GROUP BY token) v ON v.token = t.token
                WHERE t.state IN (\(marks))
                """
            return try Int64.fetchOne(db, sql: sql, arguments: StatementArguments(states.map(\.rawValue))) ?? 0
        }
    }

    /// Progress of every title that has a plan, in one query.
    public func progressByTitle() throws -> [String: Progress] {
        try db.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT token, SUM(CASE WHEN state = 'gap' THEN 0 ELSE 1 END) AS total,
                           SUM(CASE WHEN state = 'verified' THEN 1 ELSE 0 END) AS verified,
                           CAST(MIN(TOTAL(CASE WHEN state = 'verified' THEN COALESCE(bytes, 0) ELSE 0 END),
                               9.0e18) AS INTEGER) AS bytes
                    FROM resource GROUP BY token
                    """)
            var result: [String: Progress] = [:]
            for row in rows {
                result[row["token"]] = Progress(
                    verified: row["verified"] ?? 0, total: row["total"] ?? 0,
                    bytesVerified: row["bytes"] ?? 0)
            }
            return result
        }
    }

    /// Progress of one title.
    public func progress(token: String) throws -> Progress {
        try db.read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT SUM(CASE WHEN state = 'gap' THEN 0 ELSE 1 END) AS total,
                           SUM(CASE WHEN state = 'verified' THEN 1 ELSE 0 END) AS verified,
                           CAST(MIN(TOTAL(CASE WHEN state = 'verified' THEN COALESCE(bytes, 0) ELSE 0 END),
                               9.0e18) AS INTEGER) AS bytes
                    FROM resource WHERE token = ?
                    """, arguments: [token])
            return Progress(
                verified: row?["verified"] ?? 0, total: row?["total"] ?? 0,
                bytesVerified: row?["bytes"] ?? 0)
        }
    }

    /// Whether a title has a resource in any of `states` (an index lookup per state, whatever the title's
    /// size: the scheduler asks this on every result, so it must not count all of a title's resources).
    public func hasResources(token: String, in states: [ResourceState]) throws -> Bool {
        try db.read { db in
            let marks = states.map { _ in "?" }.joined(separator: ",")
            let arguments = StatementArguments([token] + states.map(\.rawValue))
            let sql = "SELECT EXISTS(SELECT 1 FROM resource WHERE token = ? AND state IN (\(marks)))"
            return try Bool.fetchOne(db, sql: sql, arguments: arguments) ?? false
        }
    }

    /// After a crash: leases died with the process, so work that was out goes back to be handed out again.
    /// Verified resources are untouched. Returns how many resources were reset.
    @discardableResult
    public func recoverInterruptedWork() throws -> Int {
        try db.write { db in
            let state = ResourceRecord.Columns.state
            let fetching = try ResourceRecord.all().inState(.fetching)
                .updateAll(db, state.set(to: ResourceState.pending))
            let verifying = try ResourceRecord.all().inState(.verifying)
                .updateAll(db, state.set(to: ResourceState.fetched))
            return fetching + verifying
        }
    }

    /// How many resources of a title are in each state.
    public func stateCounts(token: String) throws -> [ResourceState: Int] {
        try db.read { db in
            let sql = "SELECT state, COUNT(*) AS n FROM resource WHERE token = ? GROUP BY state"
            let rows = try Row.fetchAll(db, sql: sql, arguments: [token])
            var out: [ResourceState: Int] = [:]
            for row in rows {
                if let state = ResourceState(rawValue: row["state"]) { out[state] = row["n"] }
            }
            return out
        }
    }

    /// Clears the failed-attempt counters of a title (on resume).
    public func resetAttempts(token: String) throws {
        try db.write { db in
            _ = try ResourceRecord.all().forTitle(token).updateAll(db, ResourceRecord.Columns.attempts.set(to: 0))
        }
    }
}
