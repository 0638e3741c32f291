import GRDB

/// The two engines a store runs on.
public enum StoreDialect: String, Sendable {
    case sqlite
    case postgres
}

/// One connection the store's functions use for both engines: SQL in, GRDB `Row`s out, so records decode the GRDB
/// way whichever engine read them. SQL written for it is the portable subset: `?` placeholders, identifiers written
/// without quotes (PostgreSQL folds them to lower case, GRDB's row lookup ignores case), booleans as 0/1 integers;
/// where the engines differ, a store function branches on ``dialect`` in one place.
///
/// Not `Sendable`: it lives inside one read or one transaction on the store's thread.
public final class StoreConnection {
    enum Backend {
        case sqlite(Database)
        case postgres(PostgresSession)
    }

    let backend: Backend

    init(_ backend: Backend) { self.backend = backend }

    /// Which engine runs the SQL.
    public var dialect: StoreDialect {
        switch backend {
        case .sqlite: .sqlite
        case .postgres: .postgres
        }
    }

    /// The GRDB database of an SQLite store (nil on PostgreSQL): hot paths keep GRDB's cached statements with it.
    var sqlite: Database? {
        if case .sqlite(let db) = backend { return db }
        return nil
    }

    /// The session of a PostgreSQL store (nil on SQLite).
    var postgres: PostgresSession? {
        if case .postgres(let session) = backend { return session }
        return nil
    }

    /// Runs one statement; answers how many rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ arguments: StatementArguments = []) throws -> Int {
        switch backend {
        case .sqlite(let db):
            let statement = try db.cachedStatement(sql: sql)
            try statement.execute(arguments: arguments)
            return db.changesCount
        case .postgres(let session):
            return try session.run(sql, arguments).changed
        }
    }

    /// Runs one query; answers its rows (column order kept, so `row[0]` is the first column).
    public func rows(_ sql: String, _ arguments: StatementArguments = []) throws -> [Row] {
        switch backend {
        case .sqlite(let db):
            return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
        case .postgres(let session):
            return try session.run(sql, arguments).rows
        }
    }

    /// Inserts many rows: `insert` is `INSERT INTO t (columns) VALUES`, `row` one row's placeholders. On SQLite one
    /// cached statement per row (as fast as SQLite goes); on PostgreSQL up to 1,800 values a statement (the
    /// session reads arguments back through SQLite, which returns at most 2,000 columns), since each statement is a
    /// round trip to the server (a plan of tens of thousands of files).
    public func insertRows(_ insert: String, _ row: String, _ rows: [[(any DatabaseValueConvertible)?]]) throws {
        let perStatement = dialect == .postgres ? max(1, 1_800 / max(1, rows.first?.count ?? 1)) : 1
        for start in stride(from: 0, to: rows.count, by: perStatement) {
            let part = rows[start..<min(start + perStatement, rows.count)]
            let sql = insert + " " + repeatElement(row, count: part.count).joined(separator: ", ")
            try execute(sql, StatementArguments(part.flatMap { $0 }))
        }
    }

    /// The first column of the first row, or nil (no row, or NULL).
    public func value<V: DatabaseValueConvertible>(
        _ type: V.Type = V.self, _ sql: String, _ arguments: StatementArguments = []
    ) throws -> V? {
        guard let row = try rows(sql, arguments).first, !row.isEmpty else { return nil }
        return row[0]
    }

    /// The first column of every row (NULLs left out).
    public func values<V: DatabaseValueConvertible>(
        _ type: V.Type = V.self, _ sql: String, _ arguments: StatementArguments = []
    ) throws -> [V] {
        try rows(sql, arguments).compactMap { $0.isEmpty ? nil : $0[0] as V? }
    }

    /// Records decoded from a query's rows.
    public func records<R: FetchableRecord>(
        _ type: R.Type, _ sql: String, _ arguments: StatementArguments = []
    ) throws -> [R] {
        try rows(sql, arguments).map { try R(row: $0) }
    }
}
