import Foundation
import GRDB
import StowageProtocol

/// The scheduler's durable state, on one of two engines: the embedded SQLite (WAL, through GRDB; the default) or a
/// PostgreSQL database (`--store postgres://…`). Every change is one transaction, so a `kill -9` at any moment leaves
/// either the old or the new state, never half of one; both engines keep the same contract (one test suite runs on
/// both). Store functions talk to a ``StoreConnection`` and do not know which engine runs their SQL.
///
/// Not `Sendable`: one thread (the scheduler's poll loop) owns it, which is what lets reads skip their own
/// transaction (see `db`), and lets PostgreSQL's calls block that thread.
public final class Store {
    enum Engine {
        case sqlite(DatabaseQueue)
        case postgres(PostgresSession)
    }

    let engine: Engine
    /// The connection inside the transaction a ``batch(_:)`` holds open, if one runs.
    private var batchConnection: StoreConnection?
    /// Checked first in every write transaction (a plain write, and a batch's); a throw refuses the write. The
    /// scheduler that leads sets it, so that a deposed leader changes nothing.
    public var writeFence: (any StoreWriteFence)?
    /// Reads and writes go through here. One process (the scheduler's poll thread) owns the store, so reads
    /// need no isolating transaction of their own: on SQLite `read` is GRDB's `unsafeRead`, which skips the
    /// BEGIN/COMMIT and read-only bookkeeping that otherwise dominated the scheduler's CPU on small segments.
    /// Inside a batch, both use the batch's transaction; each write is a savepoint of it.
    var db: Access { Access(engine: engine, batch: batchConnection, fence: writeFence) }

    /// Which engine the store runs on.
    public var dialect: StoreDialect {
        switch engine {
        case .sqlite: .sqlite
        case .postgres: .postgres
        }
    }

    struct Access {
        let engine: Engine
        let batch: StoreConnection?
        let fence: (any StoreWriteFence)?

        func read<T>(_ body: (StoreConnection) throws -> T) throws -> T {
            if let batch { return try body(batch) }
            switch engine {
            case .sqlite(let queue): return try queue.unsafeRead { try body(StoreConnection(.sqlite($0))) }
            case .postgres(let session): return try body(StoreConnection(.postgres(session)))
            }
        }

        /// A change made by one SQL statement: atomic by itself (SQLite undoes a failed statement whole), so
        /// inside an SQLite batch it needs no savepoint of its own. PostgreSQL aborts the whole transaction on a
        /// failed statement, so there it takes a savepoint like any write.
        func statement(_ body: (StoreConnection) throws -> Void) throws {
            if let batch, batch.dialect == .sqlite { return try body(batch) }
            try write(body)
        }

        func write<T>(_ body: (StoreConnection) throws -> T) throws -> T {
            if let batch {
                // A change that fails undoes itself only, as it would in a transaction of its own.
                return try StoreTransaction.savepoint(batch, body)
            }
            return try StoreTransaction.run(engine) { connection in
                try fence?.check(connection)
                return try body(connection)
            }
        }
    }

    /// Group commit: every change `body` makes commits in one transaction at its end, instead of one
    /// transaction each. A crash before that commit loses the batch's changes together (each change is still
    /// whole or absent); so nothing that depends on them may be told to another process before this returns.
    /// A change that fails inside is undone alone and the batch goes on. Nested batches join the outer one.
    /// The write fence is checked once, first: refused, nothing of the batch runs.
    public func batch(_ body: () -> Void) throws {
        if batchConnection != nil { return body() }
        try StoreTransaction.run(engine) { connection in
            try writeFence?.check(connection)
            batchConnection = connection
            defer { batchConnection = nil }
            body()
        }
    }

    /// Whether a ``batch(_:)`` is running (its changes are not committed yet).
    public var inBatch: Bool { batchConnection != nil }

    /// Per-title counts for progress.
    public struct Progress: Sendable, Equatable {
        public var verified: Int
        public var total: Int
        public var bytesVerified: Int64
        /// Counts of one title (all zero: nothing planned).
        public init(verified: Int = 0, total: Int = 0, bytesVerified: Int64 = 0) {
            self.verified = verified
            self.total = total
            self.bytesVerified = bytesVerified
        }
    }

    /// Opens (creating and migrating if needed) the store at `location`: an SQLite file, or a PostgreSQL database
    /// (empty, or Stowage's; its schema brought to this version under an advisory lock).
    public convenience init(location: StoreLocation) throws {
        switch location {
        case .sqlite(let path): try self.init(path: path)
        case .postgres(let postgres): try self.init(postgres: postgres)
        }
    }

    /// Opens a PostgreSQL store, its schema brought to `migrator` up to `target` (nil: every migration; tests
    /// make older schemas with it).
    init(postgres: PostgresLocation, migrator: DatabaseMigrator = Schema.migrator, upTo target: String? = nil) throws {
        let session = try PostgresSession(postgres)
        try PostgresSchema.prepare(session, migrator: migrator, upTo: target)
        engine = .postgres(session)
    }

    /// Opens (creating and migrating if needed) the store at `path`.
    public init(path: String) throws {
        var config = Configuration()
        config.busyMode = .timeout(5)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        let queue = try DatabaseQueue(path: path, configuration: config)
        try Schema.migrator.migrate(queue)
        engine = .sqlite(queue)
    }

    /// A store in memory (tests).
    public init() throws {
        let queue = try DatabaseQueue()
        try Schema.migrator.migrate(queue)
        engine = .sqlite(queue)
    }

    /// The applied migrations, oldest first.
    public func appliedMigrations() throws -> [String] {
        try db.read { connection in
            if let db = connection.sqlite { return try Schema.migrator.appliedMigrations(db) }
            let applied = Set(try connection.values(String.self, "SELECT identifier FROM grdb_migrations"))
            return Schema.migrator.migrations.filter(applied.contains)
        }
    }

    // MARK: titles

    /// Stores a new title.
    public func insert(_ title: TitleRecord) throws {
        try db.write { try $0.insert(title) }
    }

    /// The title with this token, or nil.
    public func title(_ token: String) throws -> TitleRecord? {
        // Cached statements: the scheduler looks titles and resources up on every result.
        try db.read { try $0.records(TitleRecord.self, "SELECT * FROM title WHERE token = ?", [token]).first }
    }

    /// Just a title's state (no record decoding), or nil if there is no such title.
    public func titleState(_ token: String) throws -> TitleState? {
        try db.read { try $0.value(TitleState.self, "SELECT state FROM title WHERE token = ?", [token]) }
    }

    /// Just a title's request headers (JSON), or nil if there is no such title.
    public func titleHeaders(_ token: String) throws -> String? {
        try db.read { try $0.value(String.self, "SELECT headers FROM title WHERE token = ?", [token]) }
    }

    /// Titles, oldest request first, optionally only those in `state`.
    public func titles(state: TitleState? = nil) throws -> [TitleRecord] {
        try titles(state: state, after: nil, limit: nil)
    }

    /// A page of titles in request order: those after the title `after` (a token; nil = from the first), at
    /// most `limit` (nil = all). An unknown `after` gives an empty page.
    public func titles(state: TitleState?, after: String?, limit: Int?) throws -> [TitleRecord] {
        try db.read { db in
            var request = TitleRecord.all().orderedByRequest()
            if let state { request = request.inState(state) }
            if let after {
                guard let cursor = try db.fetchOne(TitleRecord.self, key: after) else { return [] }
                let at = TitleRecord.Columns.requestedAt
                request = request.filter(
                    at > cursor.requestedAt || (at == cursor.requestedAt && TitleRecord.Columns.token > cursor.token))
            }
            if let limit { request = request.limit(max(0, limit)) }
            return try db.fetchAll(request)
        }
    }

    /// The first title submitted for `url` that is not canceled or failed (so a later submit can reuse it).
    public func liveTitle(url: String) throws -> TitleRecord? {
        try db.read { db in
            try db.fetchOne(
                TitleRecord.filter(TitleRecord.Columns.url == url)
                    .filter(![TitleState.canceled, TitleState.failed].contains(TitleRecord.Columns.state))
                    .order(TitleRecord.Columns.requestedAt))
        }
    }

    /// Titles waiting for an unreachable host (suspended for the network, or a renewal that could not run).
    public func titlesWaitingForHosts() throws -> [TitleRecord] {
        try db.read { try $0.fetchAll(TitleRecord.filter(TitleRecord.Columns.waitingHost != nil)) }
    }

    /// Saves every column of a title.
    public func update(_ title: TitleRecord) throws {
        try db.write { try $0.update(title) }
    }

    /// Removes a title and (by cascade) its renditions and resources.
    public func delete(token: String) throws {
        _ = try db.write { try $0.deleteOne(TitleRecord.self, key: token) }
    }
}

extension Store {
    /// How many titles are in each state (one aggregate query: metrics and `stats`).
    public func titleCounts() throws -> [TitleState: Int] {
        try db.read { db in
            var out: [TitleState: Int] = [:]
            for row in try db.rows("SELECT state, COUNT(*) AS n FROM title GROUP BY state") {
                if let state = TitleState(rawValue: row["state"]) { out[state] = row["n"] }
            }
            return out
        }
    }
}
