import Foundation
import GRDB
import StowageProtocol

extension Store {
    /// Records something that happened to a title.
    public func appendEvent(token: String, kind: String, detail: String, at: Date = Date()) throws {
        try db.write { db in
            var event = EventRecord(token: token, at: at.timeIntervalSince1970, kind: kind, detail: detail)
            try db.insert(&event)
        }
    }

    /// A title's events, oldest first.
    public func events(token: String) throws -> [EventRecord] {
        try db.read { try $0.fetchAll(EventRecord.all().forTitle(token).order(EventRecord.Columns.id)) }
    }

    /// A persisted setting (the clock guard's last time seen and epoch).
    public func setting(_ key: String) throws -> String? {
        try db.read { try $0.fetchOne(SettingRecord.self, key: key)?.value }
    }

    /// Forgets a persisted setting.
    public func removeSetting(_ key: String) throws {
        _ = try db.write { try $0.deleteOne(SettingRecord.self, key: key) }
    }

    /// Stores a setting, replacing its value if it is set.
    public func setSetting(_ key: String, _ value: String) throws {
        try db.write { db in
            try db.upsert(SettingRecord(key: key, value: value))
        }
    }

    /// A title's bookmarks, by position (the source's before the user's at the same position).
    public func bookmarks(token: String) throws -> [BookmarkRecord] {
        try db.read { db in
            try db.fetchAll(
                BookmarkRecord.all().forTitle(token).order(BookmarkRecord.Columns.position, BookmarkRecord.Columns.kind)
            )
        }
    }

    /// Adds a user bookmark; one already at that position is replaced.
    public func putBookmark(_ bookmark: BookmarkRecord) throws {
        try db.write { try $0.upsert(bookmark) }
    }

    /// Removes the user bookmark at `position`; returns whether there was one.
    public func removeBookmark(token: String, position: Double) throws -> Bool {
        try db.write { db in
            try db.execute(
                "DELETE FROM bookmark WHERE token = ? AND kind = ? AND position = ?",
                [token, Bookmark.Kind.user, position]) > 0
        }
    }
}
