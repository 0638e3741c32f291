import GRDB
import StowageProtocol

// Enum-like text columns are stored as the enums' raw values. Where the scheduler always read an unknown
// value (written by a newer version) as a fallback, decoding keeps that fallback instead of failing the row.

extension TitleState: DatabaseValueConvertible {
    /// An unknown state reads as `failed`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> TitleState? {
        String.fromDatabaseValue(dbValue).map { TitleState(rawValue: $0) ?? .failed }
    }
}

extension ResourceState: DatabaseValueConvertible {
    /// An unknown state reads as `pending` (the file is fetched again).
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> ResourceState? {
        String.fromDatabaseValue(dbValue).map { ResourceState(rawValue: $0) ?? .pending }
    }
}

extension Container: DatabaseValueConvertible {
    /// An unknown container reads as `other` (no container sanity check).
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Container? {
        String.fromDatabaseValue(dbValue).map { Container(rawValue: $0) ?? .other }
    }
}

extension Bookmark.Kind: DatabaseValueConvertible {
    /// An unknown kind reads as `user`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Bookmark.Kind? {
        String.fromDatabaseValue(dbValue).map { Bookmark.Kind(rawValue: $0) ?? .user }
    }
}

extension SuspendedReason: DatabaseValueConvertible {}

extension AddressClass: DatabaseValueConvertible {
    /// An unknown class reads as `public`: the narrowest reach.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> AddressClass? {
        String.fromDatabaseValue(dbValue).map { AddressClass(rawValue: $0) ?? .public }
    }
}
extension PlannedResource.Kind: DatabaseValueConvertible {}
extension PlannedRendition.Kind: DatabaseValueConvertible {}

// MARK: requests

extension DerivableRequest<TitleRecord> {
    /// Titles in `state`.
    public func inState(_ state: TitleState) -> Self {
        filter(TitleRecord.Columns.state == state)
    }

    /// Oldest request first (the token breaks ties).
    public func orderedByRequest() -> Self {
        order(TitleRecord.Columns.requestedAt, TitleRecord.Columns.token)
    }
}

extension DerivableRequest<ResourceRecord> {
    /// The resources of one title.
    public func forTitle(_ token: String) -> Self {
        filter(ResourceRecord.Columns.token == token)
    }

    /// Resources in `state`.
    public func inState(_ state: ResourceState) -> Self {
        filter(ResourceRecord.Columns.state == state)
    }

    /// In playlist order.
    public func orderedByPosition() -> Self {
        order(ResourceRecord.Columns.position)
    }
}

extension DerivableRequest<RenditionRecord> {
    /// The renditions of one title.
    public func forTitle(_ token: String) -> Self {
        filter(RenditionRecord.Columns.token == token)
    }
}

extension DerivableRequest<ContentKeyRecord> {
    /// The content keys of one title.
    public func forTitle(_ token: String) -> Self {
        filter(ContentKeyRecord.Columns.token == token)
    }
}

extension DerivableRequest<BookmarkRecord> {
    /// The bookmarks of one title.
    public func forTitle(_ token: String) -> Self {
        filter(BookmarkRecord.Columns.token == token)
    }

    /// Bookmarks of one kind (the user's, or the source's index).
    public func ofKind(_ kind: Bookmark.Kind) -> Self {
        filter(BookmarkRecord.Columns.kind == kind)
    }
}

extension DerivableRequest<EventRecord> {
    /// The events of one title.
    public func forTitle(_ token: String) -> Self {
        filter(EventRecord.Columns.token == token)
    }
}
