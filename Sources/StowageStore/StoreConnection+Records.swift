import GRDB

/// Records on either engine. GRDB's query interface stays the way store functions ask for records: on SQLite it
/// runs as GRDB runs it; on PostgreSQL the request is compiled to SQL by the schema-only SQLite the session keeps
/// (the same tables), and that SQL runs on the server. Writes of records build their SQL from the record's columns
/// (`databaseDictionary`) and the table's primary key.
extension StoreConnection {
    /// Every record a request selects.
    public func fetchAll<R: FetchableRecord>(_ request: QueryInterfaceRequest<R>) throws -> [R] {
        switch backend {
        case .sqlite(let db): return try request.fetchAll(db)
        case .postgres(let session):
            let (sql, arguments) = try session.compile(request, single: false)
            return try records(R.self, sql, arguments)
        }
    }

    /// The first record a request selects, or nil.
    public func fetchOne<R: FetchableRecord>(_ request: QueryInterfaceRequest<R>) throws -> R? {
        switch backend {
        case .sqlite(let db): return try request.fetchOne(db)
        case .postgres(let session):
            let (sql, arguments) = try session.compile(request, single: true)
            return try records(R.self, sql, arguments).first
        }
    }

    /// The record of this primary key, or nil.
    public func fetchOne<R: FetchableRecord & TableRecord>(
        _ type: R.Type, key: some DatabaseValueConvertible
    ) throws -> R? {
        try fetchOne(R.filter(key: key))
    }

    /// Inserts a record whose table has an auto-incremented `id`; the record takes the id the engine assigned.
    public func insert<R: MutablePersistableRecord & AutoIDRecord>(_ record: inout R) throws {
        switch backend {
        case .sqlite(let db): try record.insert(db)
        case .postgres(let session):
            var columns = try record.databaseDictionary
            let autoID = columns["id"] == .null
            if autoID { columns["id"] = nil }
            let (sql, arguments) = Self.insertSQL(R.databaseTableName, columns)
            let rows = try session.run(sql + (autoID ? " RETURNING id" : ""), arguments).rows
            if autoID, let id: Int64 = rows.first?[0] { record.id = id }
        }
    }

    /// Inserts a record with a key of its own (no auto-incremented id).
    public func insert<R: PersistableRecord>(_ record: R) throws {
        switch backend {
        case .sqlite(let db): try record.insert(db)
        case .postgres:
            let (sql, arguments) = Self.insertSQL(R.databaseTableName, try record.databaseDictionary)
            try execute(sql, arguments)
        }
    }

    /// Inserts a record, or replaces every column of the one with the same primary key.
    public func upsert<R: PersistableRecord>(_ record: R) throws {
        switch backend {
        case .sqlite(let db): try record.insert(db, onConflict: .replace)
        case .postgres(let session):
            let columns = try record.databaseDictionary
            let key = try session.primaryKey(R.databaseTableName)
            let (sql, arguments) = Self.insertSQL(R.databaseTableName, columns)
            let others = columns.keys.sorted().filter { !key.contains($0) }
            let action =
                others.isEmpty
                ? "DO NOTHING" : "DO UPDATE SET " + others.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            try execute(sql + " ON CONFLICT (\(key.joined(separator: ", "))) " + action, arguments)
        }
    }

    /// Saves every column of a record (by its primary key); no row with that key is GRDB's `recordNotFound`.
    public func update<R: MutablePersistableRecord>(_ record: R) throws {
        switch backend {
        case .sqlite(let db): try record.update(db)
        case .postgres(let session):
            let columns = try record.databaseDictionary
            let key = try session.primaryKey(R.databaseTableName)
            let others = columns.keys.sorted().filter { !key.contains($0) }
            let sets = others.map { "\($0) = ?" }.joined(separator: ", ")
            let wheres = key.map { "\($0) = ?" }.joined(separator: " AND ")
            let values = others.map { columns[$0]! } + key.map { columns[$0] ?? .null }
            let sql = "UPDATE \(R.databaseTableName) SET \(sets) WHERE \(wheres)"
            if try execute(sql, StatementArguments(values)) == 0 {
                let keyValues = Dictionary(uniqueKeysWithValues: key.map { ($0, columns[$0] ?? .null) })
                throw RecordError.recordNotFound(databaseTableName: R.databaseTableName, key: keyValues)
            }
        }
    }

    /// Deletes the row of a single-column primary key; answers whether there was one.
    @discardableResult
    public func deleteOne<R: TableRecord>(_ type: R.Type, key: some DatabaseValueConvertible) throws -> Bool {
        switch backend {
        case .sqlite(let db): return try R.deleteOne(db, key: key)
        case .postgres(let session):
            let column = try session.primaryKey(R.databaseTableName)[0]
            return try execute("DELETE FROM \(R.databaseTableName) WHERE \(column) = ?", [key]) > 0
        }
    }

    /// `INSERT INTO table (columns) VALUES (?, …)` for these columns, in name order.
    static func insertSQL(_ table: String, _ columns: [String: DatabaseValue]) -> (String, StatementArguments) {
        let names = columns.keys.sorted()
        let marks = repeatElement("?", count: names.count).joined(separator: ", ")
        let sql = "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES (\(marks))"
        return (sql, StatementArguments(names.map { columns[$0]! }))
    }
}

/// A record whose table's primary key is an auto-incremented `id` (its value is nil until inserted).
public protocol AutoIDRecord {
    var id: Int64? { get set }
}

extension RenditionRecord: AutoIDRecord {}
extension ResourceRecord: AutoIDRecord {}
extension EventRecord: AutoIDRecord {}
extension DevicePlayRecord: AutoIDRecord {}
extension NotifyRecord: AutoIDRecord {}
