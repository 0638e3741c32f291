import Foundation
import GRDB
import StowageProtocol

/// The scheduler's durable state: SQLite (WAL) through GRDB. Every change is one transaction, so a
/// `kill -9` at any moment leaves either the old or the new state, never half of one.
public final class Store: @unchecked Sendable {
    let queue: DatabaseQueue
    /// Reads and writes go through here. One process (the scheduler's poll thread) owns the store, so reads
    /// need no isolating transaction of their own: `read` is GRDB's `unsafeRead`, which skips the
    /// BEGIN/COMMIT and read-only bookkeeping that otherwise dominated the scheduler's CPU on small segments.
    var db: Access { Access(queue: queue) }

    struct Access {
        let queue: DatabaseQueue
        func read<T>(_ body: (Database) throws -> T) throws -> T { try queue.unsafeRead(body) }
        func write<T>(_ body: (Database) throws -> T) throws -> T { try queue.write(body) }
    }

    /// Per-title counts for progress.
    public struct Progress: Sendable, Equatable {
        public var verified: Int
        public var total: Int
        public var bytesVerified: Int64
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

    public func insert(_ title: TitleRecord) throws {
        try db.write { try title.insert($0) }
    }

    public func title(_ token: String) throws -> TitleRecord? {
        // Cached statements: the scheduler looks titles and resources up on every result.
        try db.read { db in try TitleRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM title WHERE token = ?"), arguments: [token]) }
    }

    /// Just a title's state (no record decoding), or nil if there is no such title.
    public func titleState(_ token: String) throws -> TitleState? {
        try db.read { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT state FROM title WHERE token = ?"), arguments: [token])
                .map { TitleState(rawValue: $0) ?? .failed }
        }
    }

    /// Just a title's request headers (JSON), or nil if there is no such title.
    public func titleHeaders(_ token: String) throws -> String? {
        try db.read { db in try String.fetchOne(db.cachedStatement(sql: "SELECT headers FROM title WHERE token = ?"), arguments: [token]) }
    }

    /// Titles, oldest request first, optionally only those in `state`.
    public func titles(state: TitleState? = nil) throws -> [TitleRecord] {
        try db.read { db in
            var request = TitleRecord.order(Column("requestedAt"), Column("token"))
            if let state { request = request.filter(Column("state") == state.rawValue) }
            return try request.fetchAll(db)
        }
    }

    /// The first title submitted for `url` that is not canceled or failed (so a later submit can reuse it).
    public func liveTitle(url: String) throws -> TitleRecord? {
        try db.read { db in
            try TitleRecord.filter(Column("url") == url)
                .filter(![TitleState.canceled.rawValue, TitleState.failed.rawValue].contains(Column("state")))
                .order(Column("requestedAt")).fetchOne(db)
        }
    }

    /// Titles waiting for an unreachable host (suspended for the network, or a renewal that could not run).
    public func titlesWaitingForHosts() throws -> [TitleRecord] {
        try db.read { try TitleRecord.filter(Column("waitingHost") != nil).fetchAll($0) }
    }

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
            try RenditionRecord.filter(Column("token") == token).deleteAll(db)
            try ResourceRecord.filter(Column("token") == token).deleteAll(db)
            for (i, r) in plan.renditions.enumerated() {
                var record = RenditionRecord(id: nil, token: token, position: i, kind: r.kind.rawValue, sourceURL: r.sourceURL,
                                             localPath: r.localPath, playlist: r.playlist, language: r.language)
                try record.insert(db)
            }
            for (i, r) in plan.resources.enumerated() {
                var record = ResourceRecord(id: nil, token: token, position: i, rendition: r.rendition, kind: r.kind.rawValue,
                                            url: r.url, rangeOffset: r.rangeOffset, rangeLength: r.rangeLength,
                                            localPath: r.localPath, container: r.container.rawValue, encrypted: r.encrypted,
                                            duration: r.duration, state: ResourceState.pending.rawValue, attempts: 0,
                                            bytes: nil, sha256: nil, contentLength: nil, lastError: nil)
                try record.insert(db)
            }
            try ContentKeyRecord.filter(Column("token") == token).deleteAll(db)
            for (i, k) in plan.keys.enumerated() {
                try ContentKeyRecord(token: token, position: i, uri: k.uri, method: k.method, wrapped: nil, keyFormat: k.keyFormat, keyID: k.keyID).insert(db)
            }
            try BookmarkRecord.filter(Column("token") == token && Column("kind") == "index").deleteAll(db)
            for b in plan.bookmarks {
                try BookmarkRecord(token: token, kind: "index", position: b.position, label: b.label).insert(db, onConflict: .replace)
            }
            title.planned = true
            title.bytesEstimate = plan.bytesEstimate
            title.masterPlaylist = plan.masterPlaylist
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
            for var r in try ResourceRecord.filter(Column("token") == token).fetchAll(db) {
                guard let url = fresh[r.localPath], url != r.url else { continue }
                r.url = url
                try r.update(db)
                changed += 1
            }
            for (i, rendition) in plan.renditions.enumerated() {
                try db.execute(sql: "UPDATE rendition SET sourceURL = ? WHERE token = ? AND position = ?",
                               arguments: [rendition.sourceURL, token, i])
            }
            for (i, key) in plan.keys.enumerated() {
                try db.execute(sql: "UPDATE contentKey SET uri = ? WHERE token = ? AND position = ?", arguments: [key.uri, token, i])
            }
            return changed
        }
    }

    public func renditions(token: String) throws -> [RenditionRecord] {
        try db.read { try RenditionRecord.filter(Column("token") == token).order(Column("position")).fetchAll($0) }
    }

    // MARK: resources

    public func resources(token: String, state: ResourceState? = nil) throws -> [ResourceRecord] {
        try db.read { db in
            var request = ResourceRecord.filter(Column("token") == token)
            if let state { request = request.filter(Column("state") == state.rawValue) }
            return try request.order(Column("position")).fetchAll(db)
        }
    }

    public func resource(id: Int64) throws -> ResourceRecord? {
        try db.read { db in try ResourceRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM resource WHERE id = ?"), arguments: [id]) }
    }

    public func update(_ resource: ResourceRecord) throws {
        try db.write { try resource.update($0) }
    }

    /// Sets every resource of a title back to `pending` (its files are gone).
    public func resetResources(token: String) throws {
        try db.write { db in
            try db.execute(sql: "UPDATE resource SET state = ?, bytes = NULL, sha256 = NULL WHERE token = ?",
                           arguments: [ResourceState.pending.rawValue, token])
        }
    }

    /// Progress of every title that has a plan, in one query.
    public func progressByTitle() throws -> [String: Progress] {
        try db.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT token, COUNT(*) AS total,
                       SUM(CASE WHEN state = 'verified' THEN 1 ELSE 0 END) AS verified,
                       SUM(CASE WHEN state = 'verified' THEN COALESCE(bytes, 0) ELSE 0 END) AS bytes
                FROM resource GROUP BY token
                """)
            var result: [String: Progress] = [:]
            for row in rows {
                result[row["token"]] = Progress(verified: row["verified"] ?? 0, total: row["total"] ?? 0, bytesVerified: row["bytes"] ?? 0)
            }
            return result
        }
    }

    public func progress(token: String) throws -> Progress {
        try db.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS total,
                       SUM(CASE WHEN state = 'verified' THEN 1 ELSE 0 END) AS verified,
                       SUM(CASE WHEN state = 'verified' THEN COALESCE(bytes, 0) ELSE 0 END) AS bytes
                FROM resource WHERE token = ?
                """, arguments: [token])
            return Progress(verified: row?["verified"] ?? 0, total: row?["total"] ?? 0, bytesVerified: row?["bytes"] ?? 0)
        }
    }

    /// Whether a title has a resource in any of `states` (an index lookup per state, whatever the title's
    /// size: the scheduler asks this on every result, so it must not count all of a title's resources).
    public func hasResources(token: String, in states: [ResourceState]) throws -> Bool {
        try db.read { db in
            let marks = states.map { _ in "?" }.joined(separator: ",")
            let arguments = StatementArguments([token] + states.map(\.rawValue))
            return try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM resource WHERE token = ? AND state IN (\(marks)))",
                                     arguments: arguments) ?? false
        }
    }

    /// After a crash: leases died with the process, so work that was out goes back to be handed out again.
    /// Verified resources are untouched. Returns how many resources were reset.
    @discardableResult
    public func recoverInterruptedWork() throws -> Int {
        try db.write { db in
            try db.execute(sql: "UPDATE resource SET state = 'pending' WHERE state = 'fetching'")
            var changed = db.changesCount
            try db.execute(sql: "UPDATE resource SET state = 'fetched' WHERE state = 'verifying'")
            changed += db.changesCount
            return changed
        }
    }

    // MARK: events

    public func appendEvent(token: String, kind: String, detail: String, at: Date = Date()) throws {
        try db.write { db in
            var event = EventRecord(token: token, at: at.timeIntervalSince1970, kind: kind, detail: detail)
            try event.insert(db)
        }
    }

    public func events(token: String) throws -> [EventRecord] {
        try db.read { try EventRecord.filter(Column("token") == token).order(Column("id")).fetchAll($0) }
    }
}

extension Store {
    /// How many resources of a title are in each state.
    public func stateCounts(token: String) throws -> [ResourceState: Int] {
        try db.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM resource WHERE token = ? GROUP BY state",
                                        arguments: [token])
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
        try db.read { try ContentKeyRecord.filter(Column("token") == token).order(Column("position")).fetchAll($0) }
    }

    /// Stores wrapped keys (position -> wrapped bytes) in one transaction.
    public func saveWrappedKeys(token: String, _ wrapped: [Int: Data]) throws {
        try db.write { db in
            for (position, data) in wrapped {
                try db.execute(sql: "UPDATE contentKey SET wrapped = ? WHERE token = ? AND position = ?", arguments: [data, token, position])
            }
        }
    }
}

extension Store {
    /// Clears the failed-attempt counters of a title (on resume).
    public func resetAttempts(token: String) throws {
        try db.write { try $0.execute(sql: "UPDATE resource SET attempts = 0 WHERE token = ?", arguments: [token]) }
    }
}

extension Store {
    /// A persisted setting (the clock guard's last time seen and epoch).
    public func setting(_ key: String) throws -> String? {
        try db.read { try String.fetchOne($0, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key]) }
    }

    public func removeSetting(_ key: String) throws {
        try db.write { try $0.execute(sql: "DELETE FROM setting WHERE key = ?", arguments: [key]) }
    }

    public func setSetting(_ key: String, _ value: String) throws {
        try db.write { try $0.execute(sql: "INSERT INTO setting(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                                      arguments: [key, value]) }
    }
}

extension Store {
    public func bookmarks(token: String) throws -> [BookmarkRecord] {
        try db.read { try BookmarkRecord.filter(Column("token") == token).order(Column("position"), Column("kind")).fetchAll($0) }
    }

    /// Adds a user bookmark; one already at that position is replaced.
    public func putBookmark(_ bookmark: BookmarkRecord) throws {
        try db.write { try bookmark.insert($0, onConflict: .replace) }
    }

    /// Removes the user bookmark at `position`; returns whether there was one.
    public func removeBookmark(token: String, position: Double) throws -> Bool {
        try db.write { db in
            try BookmarkRecord.filter(Column("token") == token && Column("kind") == "user" && Column("position") == position).deleteAll(db) > 0
        }
    }
}
