import GRDB

/// The PostgreSQL schema, derived from ``Schema/migrator`` (never written twice by hand): the migrator builds a
/// schema-only SQLite, and its tables, columns (type, NOT NULL, default), keys (primary, unique, foreign with ON
/// DELETE CASCADE) and indexes are made the same in PostgreSQL. A newer release adds what is missing and drops the
/// columns its migrations dropped; the migration ids are recorded in `grdb_migrations`, as GRDB does, so
/// `appliedMigrations()` answers the same on both engines. All of it runs in one transaction under an advisory lock:
/// two schedulers starting at once take turns, and a failure leaves the schema as it was.
enum PostgresSchema {
    /// The advisory lock key of the schema step ("Stow").
    static let lockKey: Int64 = 0x5374_6f77

    /// A migration that rewrites data: its PostgreSQL statement, run when the migration was not applied yet and the
    /// column it reads exists (a database made by an older release), before that column is dropped.
    struct DataStep {
        var migration: String
        var table: String
        var reads: String
        var sql: String
    }

    /// Every migration that rewrites data, with its PostgreSQL step (the one place for them).
    static let dataSteps: [DataStep] = [
        DataStep(
            migration: "v8-license-terms-only", table: "title", reads: "licensekind",
            sql: """
                UPDATE title SET licenseTerms = json_build_object(
                    'kind', CASE WHEN licenseKind IN ('purchase', 'rental') THEN licenseKind ELSE 'none' END,
                    'requestedAt', COALESCE(licenseRequestedAt, requestedAt),
                    'expiresAt', licenseExpiresAt,
                    'forceExpired', false,
                    'renewalSuggested', false)::text
                WHERE licenseTerms IS NULL AND licenseKind IS NOT NULL
                """),
        // The leader row the claim updates (free until a scheduler claims it).
        DataStep(migration: "v26-leader", table: "leader", reads: "term", sql: LeaderSQL(.postgres).create[1]),
    ]

    /// Brings the database to the schema of `migrator` (up to `target`, nil: all of it). Refuses a database with
    /// tables that are not Stowage's, and one migrated by a newer release.
    static func prepare(
        _ session: PostgresSession, migrator: DatabaseMigrator = Schema.migrator, upTo target: String? = nil
    ) throws {
        let model = try DatabaseQueue()
        if let target { try migrator.migrate(model, upTo: target) } else { try migrator.migrate(model) }
        let wanted = try model.read { try migrator.appliedMigrations($0) }
        _ = try session.run("BEGIN", [])
        do {
            _ = try session.run("SELECT pg_advisory_xact_lock(?)", [lockKey])
            try apply(session, model: model, migrations: migrator.migrations, wanted: wanted)
            _ = try session.run("COMMIT", [])
        } catch {
            _ = try? session.run("ROLLBACK", [])
            throw error
        }
    }

    private static func apply(
        _ session: PostgresSession, model: DatabaseQueue, migrations: [String], wanted: [String]
    ) throws {
        var existing = Set(try tables(session))
        if !existing.contains("grdb_migrations") {
            guard existing.isEmpty else {
                throw StoreError(
                    .notEmpty,
                    "the database \(session.shown) holds tables that are not Stowage's ("
                        + existing.sorted().prefix(5).joined(separator: ", ")
                        + "): give the store a database of its own (createdb), never a shared one")
            }
            _ = try session.run("CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)", [])
        }
        let applied = Set(try session.run("SELECT identifier FROM grdb_migrations", []).rows.map { $0[0] as String })
        let unknown = applied.subtracting(migrations)
        guard unknown.isEmpty else {
            throw StoreError(
                .newerSchema,
                "the database \(session.shown) was migrated by a newer Stowage ("
                    + unknown.sorted().joined(separator: ", ") + "): run that release, or a newer one")
        }
        try model.read { db in
            let names = try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                    AND name <> 'grdb_migrations' ORDER BY rowid
                    """)
            for table in names {
                if existing.contains(table.lowercased()) {
                    let have = Set(try columns(session, table))
                    for column in try db.columns(in: table) where !have.contains(column.name.lowercased()) {
                        _ = try session.run("ALTER TABLE \(table) ADD COLUMN \(definition(column))", [])
                    }
                } else {
                    _ = try session.run(try createTable(db, table), [])
                    existing.insert(table.lowercased())
                }
            }
            for step in dataSteps where !applied.contains(step.migration) && wanted.contains(step.migration) {
                if try columns(session, step.table).contains(step.reads) { _ = try session.run(step.sql, []) }
            }
            for table in names {
                let keep = Set(try db.columns(in: table).map { $0.name.lowercased() })
                for column in try columns(session, table) where !keep.contains(column) {
                    _ = try session.run("ALTER TABLE \(table) DROP COLUMN \(column)", [])
                }
                for index in try db.indexes(on: table) where index.origin != .primaryKeyConstraint {
                    let name =
                        index.origin == .uniqueConstraint
                        ? "\(table)_\(index.columns.joined(separator: "_"))_key" : index.name
                    _ = try session.run(
                        "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(name) ON \(table) ("
                            + index.columns.joined(separator: ", ") + ")", [])
                }
            }
        }
        for id in wanted where !applied.contains(id) {
            _ = try session.run("INSERT INTO grdb_migrations (identifier) VALUES (?)", [id])
        }
    }

    /// `CREATE TABLE` of one table of the model: its columns, primary key and foreign keys.
    static func createTable(_ db: Database, _ table: String) throws -> String {
        let key = try db.primaryKey(table)
        var parts: [String] = []
        for column in try db.columns(in: table) {
            if key.rowIDColumn == column.name, key.columns == [column.name] {
                parts.append("\(column.name) BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")
            } else {
                parts.append(definition(column))
            }
        }
        if key.rowIDColumn == nil || key.columns.count > 1 {
            parts.append("PRIMARY KEY (\(key.columns.joined(separator: ", ")))")
        }
        let foreign = try Row.fetchAll(
            db, sql: "SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq", arguments: [table])
        for (_, rows) in Dictionary(grouping: foreign, by: { $0["id"] as Int }).sorted(by: { $0.key < $1.key }) {
            let destination: String = rows[0]["table"]
            let from = rows.map { $0["from"] as String }
            var to = rows.compactMap { $0["to"] as String? }
            if to.count != from.count { to = try db.primaryKey(destination).columns }
            let onDelete: String = rows[0]["on_delete"]
            let action = onDelete == "NO ACTION" ? "" : " ON DELETE \(onDelete)"
            let references = "REFERENCES \(destination) (\(to.joined(separator: ", ")))"
            parts.append("FOREIGN KEY (\(from.joined(separator: ", "))) \(references)\(action)")
        }
        return "CREATE TABLE \(table) (\(parts.joined(separator: ", ")))"
    }

    /// A column as PostgreSQL declares it: INTEGER and BOOLEAN as BIGINT (booleans are 0/1 on both engines),
    /// DOUBLE and REAL as DOUBLE PRECISION, BLOB as BYTEA, everything else TEXT.
    static func definition(_ column: ColumnInfo) -> String {
        var text = "\(column.name) \(type(column.type))"
        if column.isNotNull { text += " NOT NULL" }
        if var value = column.defaultValueSQL {
            switch value.lowercased() {
            case "false": value = "0"
            case "true": value = "1"
            default: break
            }
            text += " DEFAULT \(value)"
        }
        return text
    }

    static func type(_ sqlite: String) -> String {
        switch sqlite.uppercased() {
        case "INTEGER", "INT", "BIGINT", "BOOLEAN": "BIGINT"
        case "DOUBLE", "DOUBLE PRECISION", "REAL", "FLOAT", "NUMERIC", "DATETIME", "DATE": "DOUBLE PRECISION"
        case "BLOB": "BYTEA"
        default: "TEXT"
        }
    }

    /// The tables of the connection's schema, lower-cased.
    static func tables(_ session: PostgresSession) throws -> [String] {
        try session.run(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()", []
        ).rows.map { ($0[0] as String).lowercased() }
    }

    /// A table's columns, lower-cased.
    static func columns(_ session: PostgresSession, _ table: String) throws -> [String] {
        try session.run(
            """
            SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()
            AND table_name = ? ORDER BY ordinal_position
            """, [table.lowercased()]
        ).rows.map { ($0[0] as String).lowercased() }
    }
}
