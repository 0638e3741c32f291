import Foundation
import GRDB
import StowageProtocol

/// The scheduler's durable state: SQLite (WAL) through GRDB. Every change is one transaction, so a
/// `kill -9` at any moment leaves either the old or the new state, never half of one.
///
/// Not `Sendable`: one thread (the scheduler's poll loop) owns it, which is what lets reads skip their own
/// transaction (see `db`).
public final class Store {
    let queue: DatabaseQueue
    /// The connection inside the transaction a ``batch(_:)`` holds open, if one runs.
    private var batchConnection: Database?
    /// Reads and writes go through here. One process (the scheduler's poll thread) owns the store, so reads
    /// need no isolating transaction of their own: `read` is GRDB's `unsafeRead`, which skips the
    /// BEGIN/COMMIT and read-only bookkeeping that otherwise dominated the scheduler's CPU on small segments.
    /// Inside a batch, both use the batch's transaction; each write is a savepoint of it.
    var db: Access { Access(queue: queue, batch: batchConnection, fence: writeFence) }

    /// Checked first in every write transaction (a plain write, a batch's): a throw refuses the write whole. Set
    /// by a scheduler that leads a shared store (``LeaderFence``); nil: every write goes through.
    public var writeFence: (any StoreWriteFence)?

    struct Access {
        let queue: DatabaseQueue
        let batch: Database?
        let fence: (any StoreWriteFence)?
        func read<T>(_ body: (Database) throws -> T) throws -> T {
            if let batch { return try body(batch) }
            return try queue.unsafeRead(body)
        }
        /// A change made by one SQL statement: atomic by itself (SQLite undoes a failed statement whole), so
        /// inside a batch it needs no savepoint of its own.
        func statement(_ body: (Database) throws -> Void) throws {
            if let batch { return try body(batch) }
            try queue.write { db in
                try fence?.check(db)
                try body(db)
            }
        }
        func write<T>(_ body: (Database) throws -> T) throws -> T {
            guard let batch else {
                return try queue.write { db in
                    try fence?.check(db)
                    return try body(db)
                }
            }
            // A change that fails undoes itself only, as it would in a transaction of its own.
            var result: T?
            try batch.inSavepoint {
                result = try body(batch)
                return .commit
            }
            return result!
        }
    }

    /// Group commit: every change `body` makes commits in one transaction at its end, instead of one
    /// transaction each. A crash before that commit loses the batch's changes together (each change is still
    /// whole or absent); so nothing that depends on them may be told to another process before this returns.
    /// A change that fails inside is undone alone and the batch goes on. Nested batches join the outer one.
    public func batch(_ body: () -> Void) throws {
        if batchConnection != nil { return body() }
        try queue.writeWithoutTransaction { db in
            try db.inTransaction {
                try writeFence?.check(db)
                batchConnection = db
                defer { batchConnection = nil }
                body()
                return .commit
            }
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

    /// Opens (creating and migrating if needed) the store at `path`.
    public init(path: String) throws {
        var config = Configuration()
        config.busyMode = .timeout(5)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        queue = try DatabaseQueue(path: path, configuration: config)
        try Schema.migrator.migrate(queue)
    }

    /// A store in memory (tests).
    public init() throws {
        queue = try DatabaseQueue()
        try Schema.migrator.migrate(queue)
    }

    /// The applied migrations, oldest first.
    public func appliedMigrations() throws -> [String] {
        try db.read { try Schema.migrator.appliedMigrations($0) }
    }

    // MARK: titles

    /// Stores a new title.
    public func insert(_ title: TitleRecord) throws {
        try db.write { try title.insert($0) }
    }

    /// The title with this token, or nil.
    public func title(_ token: String) throws -> TitleRecord? {
        // Cached statements: the scheduler looks titles and resources up on every result.
        try db.read { db in
            let statement = try db.cachedStatement(sql: "SELECT * FROM title WHERE token = ?")
            return try TitleRecord.fetchOne(statement, arguments: [token])
        }
    }

    /// Just a title's state (no record decoding), or nil if there is no such title.
    public func titleState(_ token: String) throws -> TitleState? {
        try db.read { db in
            let statement = try db.cachedStatement(sql: "SELECT state FROM title WHERE token = ?")
            return try TitleState.fetchOne(statement, arguments: [token])
        }
    }

    /// Just a title's request headers (JSON), or nil if there is no such title.
    public func titleHeaders(_ token: String) throws -> String? {
        try db.read { db in
            let statement = try db.cachedStatement(sql: "SELECT headers FROM title WHERE token = ?")
            return try String.fetchOne(statement, arguments: [token])
        }
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
                guard let cursor = try TitleRecord.fetchOne(db, key: after) else { return [] }
                let at = TitleRecord.Columns.requestedAt
                request = request.filter(
                    at > cursor.requestedAt || (at == cursor.requestedAt && TitleRecord.Columns.token > cursor.token))
            }
            if let limit { request = request.limit(max(0, limit)) }
            return try request.fetchAll(db)
        }
    }

    /// The first title submitted for `url` that is not canceled or failed (so a later submit can reuse it).
    public func liveTitle(url: String) throws -> TitleRecord? {
        try db.read { db in
            try TitleRecord.filter(TitleRecord.Columns.url == url)
                .filter(![TitleState.canceled, TitleState.failed].contains(TitleRecord.Columns.state))
                .order(TitleRecord.Columns.requestedAt).fetchOne(db)
        }
    }

    /// Titles waiting for an unreachable host (suspended for the network, or a renewal that could not run).
    public func titlesWaitingForHosts() throws -> [TitleRecord] {
        try db.read { try TitleRecord.filter(TitleRecord.Columns.waitingHost != nil).fetchAll($0) }
    }

    /// Saves every column of a title.
    public func update(_ title: TitleRecord) throws {
        try db.write { try title.update($0) }
    }

    /// Removes a title and (by cascade) its renditions and resources.
    public func delete(token: String) throws {
        _ = try db.write { try TitleRecord.deleteOne($0, key: token) }
    }
}

extension Store {
    /// How many titles are in each state (one aggregate query: metrics and `stats`).
    public func titleCounts() throws -> [TitleState: Int] {
        try db.read { db in
            var out: [TitleState: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM title GROUP BY state") {
                if let state = TitleState(rawValue: row["state"]) { out[state] = row["n"] }
            }
            return out
        }
    }
}
