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
    var db: Access { Access(queue: queue, batch: batchConnection) }

    struct Access {
        let queue: DatabaseQueue
        let batch: Database?
        func read<T>(_ body: (Database) throws -> T) throws -> T {
            if let batch { return try body(batch) }
            return try queue.unsafeRead(body)
        }
        /// A change made by one SQL statement: atomic by itself (SQLite undoes a failed statement whole), so
        /// inside a batch it needs no savepoint of its own.
        func statement(_ body: (Database) throws -> Void) throws {
            if let batch { return try body(batch) }
            try queue.write(body)
        }
        func write<T>(_ body: (Database) throws -> T) throws -> T {
            guard let batch else { return try queue.write(body) }
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

    // MARK: plan

    /// Stores a resolved plan in one transaction; every resource starts `pending`.
    public func savePlan(token: String, plan: ResolvedPlan) throws {
        try db.write { db in
            guard var title = try TitleRecord.fetchOne(db, key: token) else { return }
            try RenditionRecord.all().forTitle(token).deleteAll(db)
            try ResourceRecord.all().forTitle(token).deleteAll(db)
            for (i, r) in plan.renditions.enumerated() {
                var record = RenditionRecord(
                    id: nil, token: token, position: i, kind: r.kind, sourceURL: r.sourceURL,
                    localPath: r.localPath, playlist: r.playlist, language: r.language)
                try record.insert(db)
            }
            // One prepared statement for every file (a plan may hold tens of thousands): the record insert
            // builds its SQL and a persistence container per row, several times the cost of SQLite's own work.
            let insert = try db.makeStatement(
                sql: """
                    INSERT INTO resource (token, position, rendition, kind, url, rangeOffset, rangeLength, localPath,
                    container, encrypted, duration, state, attempts, alternates)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)
                    """)
            let pending = ResourceState.pending.rawValue
            for (i, r) in plan.resources.enumerated() {
                let alternates = r.alternates.flatMap { $0.isEmpty ? nil : $0.joined(separator: "\n") }
                try insert.execute(arguments: [
                    token, i, r.rendition, r.kind.rawValue, r.url, r.rangeOffset, r.rangeLength, r.localPath,
                    r.container.rawValue, r.encrypted, r.duration, pending, alternates,
                ])
            }
            try ContentKeyRecord.all().forTitle(token).deleteAll(db)
            for (i, k) in plan.keys.enumerated() {
                try ContentKeyRecord(
                    token: token, position: i, uri: k.uri, method: k.method, wrapped: nil,
                    keyFormat: k.keyFormat, keyID: k.keyID
                ).insert(db)
            }
            try BookmarkRecord.all().forTitle(token).ofKind(.index).deleteAll(db)
            for b in plan.bookmarks {
                try BookmarkRecord(token: token, kind: .index, position: b.position, label: b.label)
                    .insert(db, onConflict: .replace)
            }
            title.planned = true
            title.bytesEstimate = plan.bytesEstimate
            title.masterPlaylist = plan.masterPlaylist
            title.manifestName = plan.manifestName
            title.protection = try plan.protection.map {
                String(decoding: try JSONEncoder().encode($0), as: UTF8.self)
            }
            try title.update(db)
        }
    }

    /// Fresh URLs from a re-resolution of a title's playlists (signed URLs that expired): every resource not
    /// yet verified takes the URL of the new plan's resource with the same local path (Stowage names files by
    /// position), key URIs and rendition sources are matched by position. Files, states and hashes are kept.
    /// Returns the number of resources whose URL changed.
    @discardableResult
    public func refreshURLs(token: String, plan: ResolvedPlan) throws -> Int {
        try db.write { db in
            let fresh = Dictionary(plan.resources.map { ($0.localPath, $0.url) }, uniquingKeysWith: { a, _ in a })
            var changed = 0
            for var r in try ResourceRecord.all().forTitle(token).fetchAll(db) {
                guard let url = fresh[r.localPath], url != r.url else { continue }
                r.url = url
                try r.update(db)
                changed += 1
            }
            for (i, rendition) in plan.renditions.enumerated() {
                try RenditionRecord.all().forTitle(token).filter(RenditionRecord.Columns.position == i)
                    .updateAll(db, RenditionRecord.Columns.sourceURL.set(to: rendition.sourceURL))
            }
            for (i, key) in plan.keys.enumerated() {
                try ContentKeyRecord.all().forTitle(token).filter(ContentKeyRecord.Columns.position == i)
                    .updateAll(db, ContentKeyRecord.Columns.uri.set(to: key.uri))
            }
            return changed
        }
    }

    /// The offline playlists of a title, in plan order.
    public func renditions(token: String) throws -> [RenditionRecord] {
        try db.read { try RenditionRecord.all().forTitle(token).order(RenditionRecord.Columns.position).fetchAll($0) }
    }

    // MARK: resources

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
    /// below zero), summed in one query (no title is decoded: `stats` answers at once with 100,000 titles).
    public func bytesRemaining(states: [TitleState]) throws -> Int64 {
        try db.read { db in
            let marks = states.map { _ in "?" }.joined(separator: ",")
            let sql = """
                SELECT COALESCE(SUM(MAX(0, COALESCE(t.bytesEstimate, 0) - COALESCE(v.bytes, 0))), 0)
                FROM title t LEFT JOIN (
                    SELECT token, SUM(COALESCE(bytes, 0)) AS bytes FROM resource WHERE state = 'verified'
                    GROUP BY token) v ON v.token = t.token
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
                           SUM(CASE WHEN state = 'verified' THEN COALESCE(bytes, 0) ELSE 0 END) AS bytes
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
                           SUM(CASE WHEN state = 'verified' THEN COALESCE(bytes, 0) ELSE 0 END) AS bytes
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

    // MARK: events

    /// Records something that happened to a title.
    public func appendEvent(token: String, kind: String, detail: String, at: Date = Date()) throws {
        try db.write { db in
            var event = EventRecord(token: token, at: at.timeIntervalSince1970, kind: kind, detail: detail)
            try event.insert(db)
        }
    }

    /// A title's events, oldest first.
    public func events(token: String) throws -> [EventRecord] {
        try db.read { try EventRecord.all().forTitle(token).order(EventRecord.Columns.id).fetchAll($0) }
    }
}

extension Store {
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

extension Store {
    /// The content keys of a title, in order.
    public func keys(token: String) throws -> [ContentKeyRecord] {
        try db.read { db in
            try ContentKeyRecord.all().forTitle(token).order(ContentKeyRecord.Columns.position).fetchAll(db)
        }
    }

    /// Stores wrapped keys (position -> wrapped bytes) in one transaction.
    public func saveWrappedKeys(token: String, _ wrapped: [Int: Data]) throws {
        try db.write { db in
            for (position, data) in wrapped {
                try ContentKeyRecord.all().forTitle(token).filter(ContentKeyRecord.Columns.position == position)
                    .updateAll(db, ContentKeyRecord.Columns.wrapped.set(to: data))
            }
        }
    }
}

extension Store {
    /// Clears the failed-attempt counters of a title (on resume).
    public func resetAttempts(token: String) throws {
        try db.write { db in
            _ = try ResourceRecord.all().forTitle(token).updateAll(db, ResourceRecord.Columns.attempts.set(to: 0))
        }
    }
}

extension Store {
    /// A persisted setting (the clock guard's last time seen and epoch).
    public func setting(_ key: String) throws -> String? {
        try db.read { try SettingRecord.fetchOne($0, key: key)?.value }
    }

    /// Forgets a persisted setting.
    public func removeSetting(_ key: String) throws {
        _ = try db.write { try SettingRecord.deleteOne($0, key: key) }
    }

    /// Stores a setting, replacing its value if it is set.
    public func setSetting(_ key: String, _ value: String) throws {
        try db.write { db in
            try SettingRecord(key: key, value: value).upsert(db)
        }
    }
}

extension Store {
    /// A title's bookmarks, by position (the source's before the user's at the same position).
    public func bookmarks(token: String) throws -> [BookmarkRecord] {
        try db.read { db in
            try BookmarkRecord.all().forTitle(token)
                .order(BookmarkRecord.Columns.position, BookmarkRecord.Columns.kind).fetchAll(db)
        }
    }

    /// Adds a user bookmark; one already at that position is replaced.
    public func putBookmark(_ bookmark: BookmarkRecord) throws {
        try db.write { try bookmark.insert($0, onConflict: .replace) }
    }

    /// Removes the user bookmark at `position`; returns whether there was one.
    public func removeBookmark(token: String, position: Double) throws -> Bool {
        try db.write { db in
            try BookmarkRecord.all().forTitle(token).ofKind(.user)
                .filter(BookmarkRecord.Columns.position == position).deleteAll(db) > 0
        }
    }
}
