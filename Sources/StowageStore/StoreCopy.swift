import Crypto
import Foundation
import GRDB

/// `stowctl store copy --to postgres://…`: every row of an embedded (SQLite) store into an empty PostgreSQL store,
/// then checked row for row, all in one PostgreSQL transaction, so a copy that fails or does not check leaves the
/// database as empty as it was.
///
/// Every table the migrations made is copied with its own ids (titles, plans, wrapped keys, licenses, plays, devices,
/// the catalogue's settings, the outbox…): a table added by a later migration is copied without a change here. Ids
/// of auto-increment tables are kept, and each table's id sequence moved past them. The check reads both sides back
/// and compares, per table, the number of rows and a digest of all of them (an order-free sum of each row's SHA-256,
/// since the engines order text differently).
public enum StoreCopy {
    /// One table copied and checked.
    public struct Table: Codable, Sendable, Equatable {
        public var table: String
        public var rows: Int
        /// The rows' digest, the same on both sides (hex).
        public var digest: String
    }

    /// Rows the migrations themselves put in a fresh database (the free leader row: term 0, no holder), by table: a
    /// destination holding only these is empty, and they are replaced by the source's rows.
    static let schemaRows = ["leader": "term = 0 AND holder = ''"]

    /// Values sent in one INSERT (PostgreSQL takes at most 65,535 parameters in a statement), bound as they are
    /// (``PostgresSession/run(_:values:)``).
    static let parameterBudget = 30_000

    /// Copies `source` (an SQLite store) into `destination` (a PostgreSQL store holding only ``schemaRows``);
    /// `progress` is told each table once it is copied. Throws ``StoreError`` (`not-empty`, `copy-mismatch`,
    /// `bad-location`, or what the server said), leaving `destination` unchanged.
    public static func copy(
        from source: Store, to destination: Store, progress: (Table) -> Void = { _ in }
    ) throws -> [Table] {
        guard case .sqlite(let queue) = source.engine else {
            throw StoreError(.badLocation, "the copy reads an embedded SQLite store (a home's stowage.sqlite)")
        }
        guard destination.dialect == .postgres else {
            throw StoreError(.badLocation, "the copy writes a PostgreSQL store: give --to postgres://USER@HOST:PORT/DB")
        }
        // One read transaction: a snapshot of the source, whatever else reads it meanwhile.
        return try queue.read { db in
            let tables = try sourceTables(db)
            return try StoreTransaction.run(destination.engine) { target in
                for table in tables {
                    let own = schemaRows[table].map { " WHERE NOT (\($0))" } ?? ""
                    let held = try target.value(Int.self, "SELECT COUNT(*) FROM \(table)\(own)") ?? 0
                    guard held == 0 else {
                        throw StoreError(
                            .notEmpty,
                            "the destination's table \(table) already holds \(held) rows: copy into a database no "
                                + "scheduler has used (createdb a new one)")
                    }
                }
                var copied: [Table] = []
                for table in tables {
                    let columns = try db.columns(in: table).map(\.name)
                    if schemaRows[table] != nil { _ = try target.execute("DELETE FROM \(table)") }
                    let sent = try insertAll(db, table: table, columns: columns, into: target)
                    try moveSequence(db, table: table, on: target)
                    let back = try digest(of: target, table: table, columns: columns)
                    guard back.rows == sent.rows, back.digest == sent.digest else {
                        throw StoreError(
                            .copyMismatch,
                            "table \(table): \(sent.rows) rows sent, \(back.rows) read back"
                                + (back.rows == sent.rows ? " with different contents" : "")
                                + "; nothing was kept in the destination")
                    }
                    let done = Table(table: table, rows: sent.rows, digest: sent.digest.hex)
                    progress(done)
                    copied.append(done)
                }
                return copied
            }
        }
    }

    /// The source's tables in the order the migrations made them (a table is made after the tables it refers to),
    /// without SQLite's and GRDB's own.
    static func sourceTables(_ db: Database) throws -> [String] {
        try String.fetchAll(
            db,
            sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                AND name <> 'grdb_migrations' ORDER BY rowid
                """)
    }

    /// Sends every row of `table` in multi-row INSERTs; answers what was sent (count and digest).
    static func insertAll(
        _ db: Database, table: String, columns: [String], into target: StoreConnection
    ) throws -> (rows: Int, digest: RowDigest) {
        let list = columns.joined(separator: ", ")
        let perStatement = max(1, parameterBudget / max(1, columns.count))
        let tuple = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        guard let session = target.postgres else {
            throw StoreError(.badLocation, "the copy writes a PostgreSQL store")
        }
        var digest = RowDigest()
        var rows = 0
        var pending: [DatabaseValue] = []
        var pendingRows = 0
        func flush() throws {
            guard pendingRows > 0 else { return }
            let values = Array(repeating: tuple, count: pendingRows).joined(separator: ", ")
            do {
                _ = try session.run("INSERT INTO \(table) (\(list)) VALUES \(values)", values: pending)
            } catch let error as DatabaseError {
                // The server's words only: the statement itself is thousands of placeholders long.
                throw StoreError(
                    .query,
                    "table \(table): the server refused a row (\(error.message ?? "\(error.resultCode)")); nothing "
                        + "was kept in the destination")
            } catch let error as StoreError {
                throw StoreError(error.code, "table \(table): \(error.message); nothing was kept in the destination")
            }
            pending.removeAll(keepingCapacity: true)
            pendingRows = 0
        }
        let cursor = try Row.fetchCursor(db, sql: "SELECT \(list) FROM \(table)")
        while let row = try cursor.next() {
            let values = (0..<columns.count).map { row[$0] as DatabaseValue }
            digest.add(values)
            pending += values
            pendingRows += 1
            rows += 1
            if pendingRows == perStatement { try flush() }
        }
        try flush()
        return (rows, digest)
    }

    /// An auto-increment table's id sequence, moved past the ids copied in (the next new row gets a fresh id).
    static func moveSequence(_ db: Database, table: String, on target: StoreConnection) throws {
        let key = try db.primaryKey(table)
        guard let id = key.rowIDColumn, key.columns == [id] else { return }
        _ = try target.rows(
            "SELECT setval(pg_get_serial_sequence('\(table)', '\(id.lowercased())'), "
                + "COALESCE(MAX(\(id)), 0) + 1, false) FROM \(table)")
    }

    /// Reads `table` back from the destination in pages of a server-side cursor (a large table is never held whole).
    static func digest(
        of target: StoreConnection, table: String, columns: [String]
    ) throws -> (rows: Int, digest: RowDigest) {
        var digest = RowDigest()
        var rows = 0
        let list = columns.joined(separator: ", ")
        try target.execute("DECLARE copycheck NO SCROLL CURSOR FOR SELECT \(list) FROM \(table)")
        defer { _ = try? target.execute("CLOSE copycheck") }
        while true {
            let page = try target.rows("FETCH FORWARD 2000 FROM copycheck")
            if page.isEmpty { break }
            for row in page {
                digest.add((0..<columns.count).map { row[$0] as DatabaseValue })
                rows += 1
            }
        }
        return (rows, digest)
    }
}

/// An order-free digest of a set of rows: the sum, word by word, of each row's SHA-256 over its values written
/// with their type (so 1, 1.0 and "1" differ, and a NULL is not an empty string).
struct RowDigest: Equatable {
    private var words: [UInt64] = [0, 0, 0, 0]

    mutating func add(_ values: [DatabaseValue]) {
        var hash = SHA256()
        for value in values {
            switch value.storage {
            case .null: hash.update(data: [0])
            case .int64(let v): hash.update(data: [1] + withUnsafeBytes(of: v.littleEndian, Array.init))
            case .double(let v): hash.update(data: [2] + withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init))
            case .string(let v):
                let bytes = Array(v.utf8)
                hash.update(data: [3] + withUnsafeBytes(of: UInt64(bytes.count).littleEndian, Array.init) + bytes)
            case .blob(let v):
                hash.update(data: [4] + withUnsafeBytes(of: UInt64(v.count).littleEndian, Array.init))
                hash.update(data: v)
            }
        }
        let digest = Array(hash.finalize())
        for i in 0..<4 {
            let word = digest[(i * 8)..<(i * 8 + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            words[i] = words[i] &+ word
        }
    }

    var hex: String { words.map { String(format: "%016llx", $0) }.joined() }
}
