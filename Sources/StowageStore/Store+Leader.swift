import Foundation
import GRDB

/// The leader row as the store holds it (`leader`, one row, `id` 1): who leads the schedulers sharing this store,
/// in which term, since when and until when. `leaseUntil` and `now` are on the database's clock, so the
/// schedulers' own clocks never have to agree.
public struct LeaderLease: Sendable, Equatable {
    /// Only grows: each claim of a free or expired lease is a new term.
    public var term: Int64
    /// The scheduler holding the term (host name, pid and a random part); empty before the first claim.
    public var holder: String
    /// The endpoints clients reach the holder at.
    public var endpoints: [String]
    /// When the term began (wall clock, seconds since 1970; shown to operators).
    public var since: Double
    /// When the lease ends unless renewed, and the database's time as the row was read (same clock).
    public var leaseUntil: Double
    public var now: Double

    /// Whether the holder still leads: a term was claimed and its lease has not run out.
    public var isHeld: Bool { term > 0 && !holder.isEmpty && leaseUntil > now }
}

/// The leader row's SQL, written once for both engines: the lead's PostgreSQL port switches on ``Dialect``. Plain
/// statements, nothing quoted, no engine-specific syntax beyond the clock and the row lock.
public struct LeaderSQL: Sendable {
    public let dialect: StoreDialect

    public init(_ dialect: StoreDialect) { self.dialect = dialect }

    /// Seconds since 1970 on the database's clock (SQLite 3.40 has no `unixepoch('subsec')`: julianday is exact to
    /// the millisecond).
    public var now: String {
        switch dialect {
        case .sqlite: "((julianday('now') - 2440587.5) * 86400.0)"
        case .postgres: "EXTRACT(EPOCH FROM clock_timestamp())"
        }
    }

    /// `v26-leader`: the one row, free (term 0) until a scheduler claims it.
    public var create: [String] {
        [
            """
            CREATE TABLE leader (id INTEGER PRIMARY KEY, term BIGINT NOT NULL, holder TEXT NOT NULL,
                endpoints TEXT NOT NULL, since DOUBLE PRECISION NOT NULL, leaseUntil DOUBLE PRECISION NOT NULL)
            """,
            "INSERT INTO leader (id, term, holder, endpoints, since, leaseUntil) VALUES (1, 0, '', '[]', 0, 0)",
        ]
    }

    /// Takes a free or expired lease, or one held by a holder known to be gone: the term grows by one in the same
    /// statement that checks it is free, so two claimants never share a term. Arguments: holder, endpoints (JSON),
    /// since, lease seconds, the gone holder ('' for none).
    public var claim: String {
        """
        UPDATE leader SET term = term + 1, holder = ?, endpoints = ?, since = ?, leaseUntil = \(now) + ?
        WHERE id = 1 AND (holder = '' OR leaseUntil <= \(now) OR holder = ?) RETURNING term
        """
    }

    /// Extends the lease of the term we hold, and only that. Arguments: lease seconds, term, holder.
    public var renew: String {
        "UPDATE leader SET leaseUntil = \(now) + ? WHERE id = 1 AND term = ? AND holder = ?"
    }

    /// Gives the lease up at once (a graceful stop): a standby need not wait for it to run out.
    public var release: String {
        "UPDATE leader SET leaseUntil = 0 WHERE id = 1 AND term = ? AND holder = ?"
    }

    public var read: String {
        "SELECT term, holder, endpoints, since, leaseUntil, \(now) AS now FROM leader WHERE id = 1"
    }

    /// The fence's read, first in a write transaction. PostgreSQL locks the row for share, so a claim (an UPDATE
    /// of the row) waits for the write to commit and the write never commits after a takeover; SQLite has one
    /// writer at a time, which does the same.
    public var fence: String {
        switch dialect {
        case .sqlite: "SELECT term FROM leader WHERE id = 1"
        case .postgres: "SELECT term FROM leader WHERE id = 1 FOR SHARE"
        }
    }
}

extension Store {
    private var leaderSQL: LeaderSQL { LeaderSQL(dialect) }

    /// Claims the lead for `holder` if no one holds it (or its lease ran out, or `gone` holds it: a holder the
    /// caller knows no longer runs): the new term, or nil when another scheduler holds it. Not fenced (a standby
    /// has no term yet).
    public func claimLeadership(
        holder: String, endpoints: [String], since: Double, leaseSeconds: Double, gone: String? = nil
    ) throws -> Int64? {
        let json = String(decoding: try JSONEncoder().encode(endpoints), as: UTF8.self)
        return try StoreTransaction.run(engine) { db in
            try db.value(Int64.self, leaderSQL.claim, [holder, json, since, leaseSeconds, gone ?? ""])
        }
    }

    /// Extends the lease of `term`: false when the term is no longer `holder`'s (another scheduler claimed it).
    public func renewLeadership(term: Int64, holder: String, leaseSeconds: Double) throws -> Bool {
        try StoreTransaction.run(engine) { db in try db.execute(leaderSQL.renew, [leaseSeconds, term, holder]) == 1 }
    }

    /// Ends the lease of `term` now (a graceful stop), if it is still `holder`'s.
    public func releaseLeadership(term: Int64, holder: String) throws {
        _ = try StoreTransaction.run(engine) { db in try db.execute(leaderSQL.release, [term, holder]) }
    }

    /// The leader row (stats, a standby's answer); nil before the `v26-leader` migration ran.
    public func leader() throws -> LeaderLease? {
        try db.read { db in
            guard let row = try db.rows(leaderSQL.read).first else { return nil }
            let endpoints = (row["endpoints"] as String?).flatMap {
                try? JSONDecoder().decode([String].self, from: Data($0.utf8))
            }
            return LeaderLease(
                term: row["term"], holder: row["holder"], endpoints: endpoints ?? [], since: row["since"],
                leaseUntil: row["leaseUntil"], now: row["now"])
        }
    }
}
