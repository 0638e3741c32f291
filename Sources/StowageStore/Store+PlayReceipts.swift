import Foundation
import GRDB

/// The ids of the play reports the scheduler has applied (`played`'s `reportID`, `play`'s and `playOn`'s `playID`):
/// a gateway sends a report again until a leader acknowledges it, across a lost answer or a takeover, and a report
/// whose id is here is not counted again. Kept ``Store/playReceiptDays`` days, far longer than a gateway retries.
///
/// Plain SQL that SQLite and PostgreSQL both run (no quoting, `DOUBLE PRECISION`), so the table ports as it is.
extension Store {
    /// How long an applied report's id is kept.
    public static let playReceiptDays = 7.0

    /// `v27-play-receipts`: the table and its index on the time (pruning).
    static func createPlayReceipts(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE playReceipt (
                    id TEXT PRIMARY KEY NOT NULL,
                    token TEXT NOT NULL,
                    receivedAt DOUBLE PRECISION NOT NULL)
                """)
        try db.execute(sql: "CREATE INDEX playReceipt_receivedAt ON playReceipt (receivedAt)")
    }

    /// Whether the report `id` was applied (and its receipt is still kept).
    public func hasPlayReceipt(_ id: String) throws -> Bool {
        try db.read { db in try !db.rows("SELECT id FROM playReceipt WHERE id = ?", [id]).isEmpty }
    }

    /// Keeps the id of a report just applied (wall-clock `now`), and forgets the receipts older than
    /// ``playReceiptDays``. Inside a batch, in its transaction with what the report changed.
    public func addPlayReceipt(_ id: String, token: String, now: Double) throws {
        try db.write { db in
            try db.execute("INSERT INTO playReceipt (id, token, receivedAt) VALUES (?, ?, ?)", [id, token, now])
            try db.execute("DELETE FROM playReceipt WHERE receivedAt < ?", [now - Self.playReceiptDays * 86_400])
        }
    }

    /// How many receipts are kept (tests, figures).
    public func playReceiptCount() throws -> Int {
        try db.read { db in try db.value(Int.self, "SELECT COUNT(*) FROM playReceipt") ?? 0 }
    }
}
