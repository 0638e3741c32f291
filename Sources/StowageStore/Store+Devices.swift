import Foundation
import GRDB
import StowageProtocol

/// A device allowed to play through the gateway. Only the SHA-256 of its secret is kept.
public struct DeviceRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "device"
    public var name: String
    /// SHA-256 of the secret: the bearer check, and with a key derived from the master key, its URL key
    /// (``StowageLicensing/DeviceURLKeys``; the store alone signs nothing).
    public var secretHash: Data
    public var createdAt: Double
    public var revokedAt: Double?
    /// Another box's credential (`devices add --peer`): it fills from this box, it never plays.
    public var peer: Bool = false
    /// When the scheduler last checked a good credential of it (unix seconds; nil: never).
    public var lastSeenAt: Double?

    public init(
        name: String, secretHash: Data, createdAt: Double, revokedAt: Double? = nil, peer: Bool = false,
        lastSeenAt: Double? = nil
    ) {
        self.name = name
        self.secretHash = secretHash
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.peer = peer
        self.lastSeenAt = lastSeenAt
    }

    /// The device table's columns, for the query interface.
    public enum Columns {
        public static let name = Column(CodingKeys.name)
        public static let secretHash = Column(CodingKeys.secretHash)
        public static let createdAt = Column(CodingKeys.createdAt)
        public static let revokedAt = Column(CodingKeys.revokedAt)
        public static let peer = Column(CodingKeys.peer)
        public static let lastSeenAt = Column(CodingKeys.lastSeenAt)
    }
}

/// One play counted for a device.
public struct DevicePlayRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "devicePlay"
    public var id: Int64?
    public var device: String
    public var token: String
    public var at: Double

    /// Takes the row id SQLite assigned.
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// The devicePlay table's columns, for the query interface.
    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let device = Column(CodingKeys.device)
        public static let token = Column(CodingKeys.token)
        public static let at = Column(CodingKeys.at)
    }
}

extension Store {
    /// Adds a device, or replaces a revoked one of the same name (a new secret).
    public func putDevice(_ device: DeviceRecord) throws {
        try db.write { try $0.upsert(device) }
    }

    /// The device with this name, revoked or not.
    public func device(_ name: String) throws -> DeviceRecord? {
        try db.read { try $0.fetchOne(DeviceRecord.self, key: name) }
    }

    /// Notes that `name` was seen at `at` (unix seconds).
    public func touchDevice(_ name: String, at: Double) throws {
        try db.write { db in
            try db.execute("UPDATE device SET lastSeenAt = ? WHERE name = ?", [at, name])
        }
    }

    /// Every device, by name.
    public func devices() throws -> [DeviceRecord] {
        try db.read { try $0.fetchAll(DeviceRecord.order(DeviceRecord.Columns.name)) }
    }

    /// Records a play of `token` on `device`; only its last 20 plays are kept.
    public func recordPlay(device: String, token: String, at: Double) throws {
        try db.write { db in
            var play = DevicePlayRecord(id: nil, device: device, token: token, at: at)
            try db.insert(&play)
            try db.execute(
                """
                DELETE FROM devicePlay WHERE device = ? AND id NOT IN (
                    SELECT id FROM devicePlay WHERE device = ? ORDER BY id DESC LIMIT 20)
                """, [device, device])
        }
    }

    /// A device's last plays, newest first.
    public func plays(device: String) throws -> [DevicePlayRecord] {
        try db.read { db in
            try db.fetchAll(
                DevicePlayRecord.filter(DevicePlayRecord.Columns.device == device)
                    .order(DevicePlayRecord.Columns.id.desc).limit(20))
        }
    }

    /// The title with this caller-chosen id (`submit --id`).
    public func title(externalID: String) throws -> TitleRecord? {
        try db.read { try $0.fetchOne(TitleRecord.filter(TitleRecord.Columns.externalID == externalID)) }
    }

    /// The titles submitted for this source URL, newest first.
    public func titles(url: String) throws -> [TitleRecord] {
        try db.read { db in
            try db.fetchAll(
                TitleRecord.filter(TitleRecord.Columns.url == url).order(TitleRecord.Columns.requestedAt.desc))
        }
    }
}
