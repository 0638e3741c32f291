import Foundation
import GRDB
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// The store's one connection to PostgreSQL, used synchronously: the store belongs to the scheduler's poll thread
/// (a dedicated `Thread`), so waiting there on postgres-nio's futures blocks nothing else. It keeps a schema-only
/// in-memory SQLite, migrated with ``Schema/migrator``: GRDB's requests compile to SQL against it, primary keys are
/// read from it, and statement arguments are read back through it (GRDB keeps their values to itself).
final class PostgresSession {
    /// The open connection; nil once it broke (the next statement outside a transaction connects again).
    private var open: PostgresNIO.PostgresConnection?
    private let configuration: PostgresNIO.PostgresConnection.Configuration
    private let location: PostgresLocation
    private let hadPassword: Bool
    /// Whether a transaction is open on `open`: a connection that breaks inside one is not replaced under it (its
    /// statements would run outside the transaction); the transaction fails whole, and the next one connects again.
    private var inTransaction = false
    let schema: DatabaseQueue
    /// postgres-nio's logger: errors only (its own notices are noise to an operator).
    let logger: Logger
    /// The session's own notices (a connection made again), at the process's level: an operator sees the store
    /// come back.
    private let notices = Logger(label: "stowage.store")
    /// What the URL named (never the password): errors and logs say which server it was.
    let shown: String
    private var translated: [String: (text: String, placeholders: Int)] = [:]
    private var primaryKeys: [String: [String]] = [:]

    /// The longest a statement may take before the connection is closed under it (a server cut off without a reset
    /// would otherwise hold the scheduler's thread, and its lease, for as long as TCP takes to notice).
    static let statementLimit: TimeAmount = .seconds(60)
    /// The server's side of the same: a transaction left idle (its scheduler frozen or cut off) is ended by the
    /// server after this long, which frees the leader row it holds for share, so a standby's claim is not held up;
    /// dead peers are found by TCP keepalives within seconds.
    /// `application_name` names the process (`stowage-scheduler[PID]`), so the server's activity view and its log
    /// say which scheduler of a farm holds a connection or wrote a row.
    static let sessionSettings = [
        "SET application_name = '\(applicationName)'", "SET idle_in_transaction_session_timeout = '10s'",
        "SET statement_timeout = '60s'",
        "SET tcp_keepalives_idle = 5", "SET tcp_keepalives_interval = 2", "SET tcp_keepalives_count = 3",
    ]

    /// This process's name and pid, as the server shows them (only letters, digits, `-`, `_` and `.` of its name).
    static let applicationName: String = {
        let name = ProcessInfo.processInfo.processName.filter { $0.isLetter || $0.isNumber || "-_.".contains($0) }
        return "\(name.prefix(40))[\(ProcessInfo.processInfo.processIdentifier)]"
    }()

    /// Connects (within `connectTimeout`); a server that does not answer, a refused login or a missing database is
    /// a ``StoreError`` naming it.
    init(_ location: PostgresLocation, connectTimeout: TimeAmount = .seconds(10)) throws {
        var logger = Logger(label: "stowage.store.postgres")
        logger.logLevel = .error
        self.logger = logger
        self.location = location
        shown = location.shown
        let credentials = try location.credentials()
        hadPassword = credentials != nil
        var configuration = PostgresNIO.PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: credentials,
            database: location.database, tls: try location.tls())
        configuration.options.connectTimeout = connectTimeout
        self.configuration = configuration
        schema = try DatabaseQueue()
        try Schema.migrator.migrate(schema)
        open = try connect()
    }

    /// A new connection with the session's settings.
    private func connect() throws -> PostgresNIO.PostgresConnection {
        let connection: PostgresNIO.PostgresConnection
        do {
            connection = try PostgresNIO.PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger
            ).wait()
        } catch {
            throw Self.openError(error, location: location, hadPassword: hadPassword)
        }
        do {
            for setting in Self.sessionSettings {
                _ = try connection.query(PostgresQuery(unsafeSQL: setting), logger: logger).wait()
            }
        } catch {
            try? connection.close().wait()
            throw Self.queryError(error, sql: "SET …")
        }
        return connection
    }

    /// The connection a statement runs on: the open one, or (outside a transaction) a new one when it broke.
    private func connection(for sql: String) throws -> PostgresNIO.PostgresConnection? {
        if let open, !open.isClosed { return open }
        if let open { try? open.close().wait() }
        open = nil
        if inTransaction {
            // Only the end of the transaction may go on: it is lost, so its ROLLBACK is done.
            if sql == "ROLLBACK" || sql.hasPrefix("ROLLBACK TO") || sql.hasPrefix("RELEASE") { return nil }
            throw StoreError(
                .query,
                "the connection to \(shown) broke inside a transaction: none of it was kept (the next change "
                    + "connects again)")
        }
        let connection = try connect()
        notices.notice("connected to the store again", metadata: ["store": "\(shown)"])
        open = connection
        return connection
    }

    /// Runs one statement (translated to PostgreSQL); its rows and how many rows it changed.
    func run(_ sql: String, _ arguments: StatementArguments) throws -> (rows: [Row], changed: Int) {
        try run(sql, values: values(of: arguments, count: translation(sql).placeholders))
    }

    /// Runs one statement with its values as they are: no count limit but the server's 65,535 (``values(of:count:)``
    /// reads arguments through SQLite, which takes at most 2,000 at once): `store copy`'s many-row INSERTs.
    func run(_ sql: String, values: [DatabaseValue]) throws -> (rows: [Row], changed: Int) {
        let (text, placeholders) = translation(sql)
        guard values.count == placeholders else {
            throw DatabaseError(message: "\(values.count) values for \(placeholders) placeholders")
        }
        var binds = PostgresBindings()
        for value in values {
            switch value.storage {
            case .null: binds.appendNull()
            case .int64(let v): binds.append(v)
            case .double(let v): binds.append(v)
            case .string(let v): binds.append(v)
            case .blob(let v): binds.append(ByteBuffer(bytes: v))
            }
        }
        guard let connection = try connection(for: sql) else {
            // The broken transaction's undo: nothing to send. Only its ROLLBACK ends it.
            if sql == "ROLLBACK" { inTransaction = false }
            return ([], 0)
        }
        let result: PostgresQueryResult
        let limit = connection.eventLoop.scheduleTask(in: Self.statementLimit) {
            _ = connection.close() as EventLoopFuture<Void>
        }
        defer { limit.cancel() }
        do {
            result = try connection.query(PostgresQuery(unsafeSQL: text, binds: binds), logger: logger).wait()
        } catch {
            if sql == "COMMIT" || sql == "ROLLBACK" { inTransaction = false }
            throw Self.queryError(error, sql: text)
        }
        if sql == "BEGIN" { inTransaction = true }
        if sql == "COMMIT" || sql == "ROLLBACK" { inTransaction = false }
        return (try result.rows.map(Self.row), result.metadata.rows ?? 0)
    }

    /// The statement as PostgreSQL takes it, and how many placeholders it has (kept for the statements run most).
    private func translation(_ sql: String) -> (text: String, placeholders: Int) {
        if let known = translated[sql] { return known }
        let made = PostgresSQL.translate(sql)
        if translated.count < 2_000 { translated[sql] = made }
        return made
    }

    /// A GRDB request as SQL and arguments (compiled against the schema-only SQLite).
    func compile<R>(_ request: QueryInterfaceRequest<R>, single: Bool) throws -> (String, StatementArguments) {
        try schema.inDatabase { db in
            let statement = try request.makePreparedRequest(db, forSingleResult: single).statement
            return (statement.sql, statement.arguments)
        }
    }

    /// A table's primary key columns (as the schema names them).
    func primaryKey(_ table: String) throws -> [String] {
        if let known = primaryKeys[table] { return known }
        let columns = try schema.inDatabase { try $0.primaryKey(table).columns }
        primaryKeys[table] = columns
        return columns
    }

    /// Closes the connection (the store is done with it).
    func close() {
        try? open?.close().wait()
        open = nil
    }

    deinit { close() }

    /// The values of positional arguments, in order: bound to `SELECT ?, ?, …` on the schema SQLite and read back
    /// (a wrong count is GRDB's usual error).
    private func values(of arguments: StatementArguments, count: Int) throws -> [DatabaseValue] {
        if count == 0 {
            guard arguments.isEmpty else { throw DatabaseError(message: "arguments given to a statement without any") }
            return []
        }
        return try schema.inDatabase { db in
            let statement = try db.cachedStatement(
                sql: "SELECT " + repeatElement("?", count: count).joined(separator: ","))
            try statement.setArguments(arguments)
            return Array(try Row.fetchOne(statement)!.databaseValues)
        }
    }

    /// One PostgreSQL row as a GRDB row: integers and booleans as 64-bit integers, `numeric` (a SUM of bigints) as
    /// an integer when whole, `bytea` as data.
    static func row(_ row: PostgresRow) throws -> Row {
        var columns: [(String, (any DatabaseValueConvertible)?)] = []
        for cell in row {
            columns.append((cell.columnName, try value(cell)))
        }
        return orderedRow(columns)
    }

    static func value(_ cell: PostgresCell) throws -> DatabaseValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8, .oid: return try cell.decode(Int64.self).databaseValue
        case .float4, .float8: return try cell.decode(Double.self).databaseValue
        case .bool: return (try cell.decode(Bool.self) ? 1 : 0 as Int64).databaseValue
        case .bytea:
            var buffer = try cell.decode(ByteBuffer.self)
            return (buffer.readData(length: buffer.readableBytes) ?? Data()).databaseValue
        case .numeric:
            let decimal = try cell.decode(Decimal.self)
            let number = NSDecimalNumber(decimal: decimal)
            if decimal == Decimal(number.int64Value) { return number.int64Value.databaseValue }
            return number.doubleValue.databaseValue
        default:
            // Text of any other type (names, JSON); what is not text (void) reads as its bytes.
            if let text = try? cell.decode(String.self) { return text.databaseValue }
            var buffer = cell.bytes!
            return (buffer.readData(length: buffer.readableBytes) ?? Data()).databaseValue
        }
    }
}
