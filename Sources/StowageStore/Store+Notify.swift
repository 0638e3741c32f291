import Foundation
import GRDB

/// One event waiting for one `--notify` receiver: stored before it is sent, deleted once the receiver answered
/// 2xx, so a restart (even after `kill -9`) sends again what was not acknowledged.
public struct NotifyRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "notifyOutbox"
    /// The row id: the outbox's order (per receiver, per subject).
    public var id: Int64?
    /// The event's id, the same for every receiver and every retry: receivers de-duplicate on it.
    public var eventID: String
    /// The receiver's URL.
    public var receiver: String
    /// What the event is about, its order key: a title's token, or "" for the box's own events.
    public var subject: String
    /// `state`, `license-expiring`, `verification-failed`, `catalog-applied`, `catalog-refused`, `evicted`.
    public var kind: String
    /// The exact JSON body POSTed (and signed).
    public var body: Data
    /// Wall-clock seconds since 1970 when it was stored.
    public var createdAt: Double

    /// A new row (its id is assigned on insertion).
    public init(eventID: String, receiver: String, subject: String, kind: String, body: Data, createdAt: Double) {
        self.eventID = eventID
        self.receiver = receiver
        self.subject = subject
        self.kind = kind
        self.body = body
        self.createdAt = createdAt
    }

    /// Takes the row id SQLite assigned.
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension Store {
    /// Stores `records` (inside a batch: in its transaction, with what they report).
    public func enqueueNotifications(_ records: [NotifyRecord]) throws {
        try db.write { db in
            for var record in records { try db.insert(&record) }
        }
    }

    /// The oldest `limit` waiting events of each receiver, in outbox order.
    public func waitingNotifications(perReceiver limit: Int) throws -> [NotifyRecord] {
        try db.read { db in
            try db.records(
                NotifyRecord.self,
                """
                SELECT * FROM notifyOutbox o WHERE o.id IN (
                    SELECT id FROM notifyOutbox i WHERE i.receiver = o.receiver ORDER BY id LIMIT ?)
                ORDER BY id
                """, [limit])
        }
    }

    /// Forgets events receivers took.
    public func deleteNotifications(ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try db.write { db in
            for start in stride(from: 0, to: ids.count, by: 500) {
                let part = ids[start..<min(start + 500, ids.count)]
                let marks = repeatElement("?", count: part.count).joined(separator: ",")
                try db.execute("DELETE FROM notifyOutbox WHERE id IN (\(marks))", StatementArguments(part))
            }
        }
    }

    /// Per receiver: how many events wait and when the oldest was stored.
    public func notificationBacklog() throws -> [String: (count: Int, oldest: Double)] {
        try db.read { db in
            var result: [String: (count: Int, oldest: Double)] = [:]
            let rows = try db.rows("SELECT receiver, COUNT(*), MIN(createdAt) FROM notifyOutbox GROUP BY receiver")
            for row in rows { result[row[0]] = (row[1], row[2]) }
            return result
        }
    }

    /// Drops the oldest events of each receiver past `limit` waiting; answers how many were dropped per receiver.
    public func trimNotifications(perReceiver limit: Int) throws -> [String: Int] {
        try db.write { db in
            var dropped: [String: Int] = [:]
            let receivers = try db.values(
                String.self, "SELECT receiver FROM notifyOutbox GROUP BY receiver HAVING COUNT(*) > ?", [limit])
            for receiver in receivers {
                dropped[receiver] = try db.execute(
                    """
                    DELETE FROM notifyOutbox WHERE receiver = ? AND id NOT IN (
                        SELECT id FROM notifyOutbox WHERE receiver = ? ORDER BY id DESC LIMIT ?)
                    """, [receiver, receiver, limit])
            }
            return dropped
        }
    }
}
