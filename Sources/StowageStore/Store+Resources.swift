import Foundation
import GRDB
import StowageProtocol

extension Store {
    /// The files of a title in playlist order, optionally only those in `state`.
    public func resources(token: String, state: ResourceState? = nil) throws -> [ResourceRecord] {
        try db.read { db in
            var request = ResourceRecord.all().forTitle(token)
            if let state { request = request.inState(state) }
            return try db.fetchAll(request.orderedByPosition())
        }
    }

    /// The resource with this id, or nil.
    public func resource(id: Int64) throws -> ResourceRecord? {
        try db.read { try $0.records(ResourceRecord.self, "SELECT * FROM resource WHERE id = ?", [id]).first }
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
                let sql = "SELECT * FROM resource WHERE id IN (\(marks))"
                for r in try db.records(ResourceRecord.self, sql, StatementArguments(part)) {
                    if let id = r.id { byID[id] = r }
                }
            }
            return byID
        }
    }

    /// The length a resource's byte range asks for (`.some(nil)`: the whole file), or nil if there is no such
    /// resource: what is checked for every file reported fetched, read without decoding the record.
    public func rangeLength(ofResource id: Int64) throws -> Int64?? {
        try db.read { db in
            guard let row = try db.rows("SELECT rangeLength FROM resource WHERE id = ?", [id]).first else { return nil }
            return .some(row[0] as Int64?)
        }
    }

    /// Saves every column of a resource.
    public func update(_ resource: ResourceRecord) throws {
        try db.write { try $0.update(resource) }
    }

    /// Records a file that arrived hashed, checked and durable: `verified`, with its size, the length the origin
    /// announced and its SHA-256 (the per-segment write: one statement, no record encoding).
    public func markVerified(id: Int64, bytes: Int64, contentLength: Int64?, sha256: String) throws {
        try db.statement { db in
            try db.execute(
                """
                UPDATE resource SET state = ?, bytes = ?, contentLength = ?, sha256 = ?, lastError = NULL
                WHERE id = ?
                """, [ResourceState.verified.rawValue, bytes, contentLength, sha256, id])
        }
    }

    /// Sets every resource of a title back to `pending` (its files are gone), gaps excepted.
    public func resetResources(token: String) throws {
        try db.write { db in
            // Gaps stay gaps: there is nothing to fetch for them.
            try db.execute(
                "UPDATE resource SET state = ?, bytes = NULL, sha256 = NULL WHERE token = ? AND state <> ?",
                [ResourceState.pending, token, ResourceState.gap])
        }
    }

    /// Bytes still to download for titles in `states`: each title's estimate less its verified bytes (never
    /// below zero), summed in one query (no title is decoded: `stats` answers at once with 100,000 titles). Sums are
    /// held to 9e18: SQLite's `SUM` fails the query on an integer overflow (so `TOTAL`, a double, there), and sizes
    /// come from outside; PostgreSQL sums bigints as `numeric`, which does not overflow.
    public func bytesRemaining(states: [TitleState]) throws -> Int64 {
        // No state: no title (PostgreSQL has no empty `IN ()`).
        if states.isEmpty { return 0 }
        return try db.read { db in
            let marks = states.map { _ in "?" }.joined(separator: ",")
            let sql =
                switch db.dialect {
                case .sqlite:
                    """
                    SELECT CAST(
                        MIN(TOTAL(MAX(0, COALESCE(t.bytesEstimate, 0) - COALESCE(v.bytes, 0))), 9.0e18) AS INTEGER)
                    FROM title t LEFT JOIN (
                        SELECT token, CAST(MIN(TOTAL(COALESCE(bytes, 0)), 9.0e18) AS INTEGER) AS bytes
                        FROM resource WHERE state = 'verified' GROUP BY token) v ON v.token = t.token
                    WHERE t.state IN (\(marks))
                    """
                case .postgres:
                    """
                    SELECT CAST(LEAST(COALESCE(SUM(GREATEST(0,
                        COALESCE(t.bytesEstimate, 0) - COALESCE(v.bytes, 0))), 0), 9e18) AS BIGINT)
                    FROM title t LEFT JOIN (
                        SELECT token, LEAST(SUM(COALESCE(bytes, 0)), 9e18) AS bytes
                        FROM resource WHERE state = 'verified' GROUP BY token) v ON v.token = t.token
                    WHERE t.state IN (\(marks))
                    """
                }
            return try db.value(Int64.self, sql, StatementArguments(states.map(\.rawValue))) ?? 0
        }
    }

    /// The verified bytes of a group of resources, held to 9e18 (see ``bytesRemaining(states:)``), as SQL.
    private static func verifiedBytes(_ dialect: StoreDialect) -> String {
        switch dialect {
        case .sqlite:
            "CAST(MIN(TOTAL(CASE WHEN state = 'verified' THEN COALESCE(bytes, 0) ELSE 0 END), 9.0e18) AS INTEGER)"
        case .postgres:
            "CAST(LEAST(COALESCE(SUM(CASE WHEN state = 'verified' THEN COALESCE(bytes, 0) ELSE 0 END), 0), 9e18) "
                + "AS BIGINT)"
        }
    }

    /// Progress of every title that has a plan, in one query.
    public func progressByTitle() throws -> [String: Progress] {
        try db.read { db in
            let rows = try db.rows(
                """
                SELECT token, SUM(CASE WHEN state = 'gap' THEN 0 ELSE 1 END) AS total,
                       SUM(CASE WHEN state = 'verified' THEN 1 ELSE 0 END) AS verified,
                       \(Self.verifiedBytes(db.dialect)) AS bytes
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
            let row = try db.rows(
                """
                SELECT SUM(CASE WHEN state = 'gap' THEN 0 ELSE 1 END) AS total,
                       SUM(CASE WHEN state = 'verified' THEN 1 ELSE 0 END) AS verified,
                       \(Self.verifiedBytes(db.dialect)) AS bytes
                FROM resource WHERE token = ?
                """, [token]
            ).first
            return Progress(
                verified: row?["verified"] ?? 0, total: row?["total"] ?? 0,
                bytesVerified: row?["bytes"] ?? 0)
        }
    }

    /// Whether a title has a resource in any of `states` (an index lookup per state, whatever the title's
    /// size: the scheduler asks this on every result, so it must not count all of a title's resources).
    public func hasResources(token: String, in states: [ResourceState]) throws -> Bool {
        if states.isEmpty { return false }
        return try db.read { db in
            let marks = states.map { _ in "?" }.joined(separator: ",")
            let arguments = StatementArguments([token] + states.map(\.rawValue))
            let sql = "SELECT EXISTS(SELECT 1 FROM resource WHERE token = ? AND state IN (\(marks)))"
            return try db.value(Bool.self, sql, arguments) ?? false
        }
    }

    /// After a crash: leases died with the process, so work that was out goes back to be handed out again.
    /// Verified resources are untouched. Returns how many resources were reset.
    @discardableResult
    public func recoverInterruptedWork() throws -> Int {
        try db.write { db in
            let sql = "UPDATE resource SET state = ? WHERE state = ?"
            let fetching = try db.execute(sql, [ResourceState.pending, ResourceState.fetching])
            let verifying = try db.execute(sql, [ResourceState.fetched, ResourceState.verifying])
            return fetching + verifying
        }
    }

    /// How many resources of a title are in each state.
    public func stateCounts(token: String) throws -> [ResourceState: Int] {
        try db.read { db in
            let sql = "SELECT state, COUNT(*) AS n FROM resource WHERE token = ? GROUP BY state"
            let rows = try db.rows(sql, [token])
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
            try db.execute("UPDATE resource SET attempts = 0 WHERE token = ?", [token])
        }
    }
}
