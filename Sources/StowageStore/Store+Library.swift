import Foundation
import GRDB
import StowageProtocol

extension Store {
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
