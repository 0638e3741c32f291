import Foundation
import GRDB
import StowageProtocol

/// A recording's store: each reload's additions land in one transaction (the rendition's offline playlist
/// and state, the new files, the new keys), so a `kill -9` leaves the recording as of one reload or the next.
extension Store {
    /// One new file of a recording.
    public struct LiveFile: Sendable {
        public var resource: PlannedResource
        /// A placeholder that is never fetched (state `gap`).
        public var isGap: Bool

        public init(resource: PlannedResource, isGap: Bool) {
            self.resource = resource
            self.isGap = isGap
        }
    }

    /// Appends a reload's lines to rendition `rendition` of `token`, stores its state (`live`, JSON), inserts
    /// the new files after every existing one and the new keys after the existing keys. Returns the new files
    /// to fetch (with their ids).
    @discardableResult
    public func appendLive(
        token: String, rendition: Int, live: String, lines: [String], files: [LiveFile], keys: [PlannedKey]
    ) throws -> [ResourceRecord] {
        try db.write { db in
            guard
                var record = try db.fetchOne(
                    RenditionRecord.all().forTitle(token).filter(RenditionRecord.Columns.position == rendition))
            else { return [] }
            if !lines.isEmpty { record.playlist += lines.joined(separator: "\n") + "\n" }
            record.live = live
            try db.update(record)
            return try Self.appendFiles(db, token: token, files: files, keys: keys)
        }
    }

    /// A Period a live DASH recording entered, in one transaction: its renditions (positions from
    /// `firstRendition`, each with its starting state from `states`), its initialization files after every existing
    /// file, its new keys after the existing keys, the title's manifest template with the Period added and its
    /// protection with the Period's.
    /// Returns the new files to fetch (with their ids).
    @discardableResult
    public func addLivePeriod(
        token: String, firstRendition: Int, renditions: [PlannedRendition], states: [String],
        files: [PlannedResource], keys: [PlannedKey], masterPlaylist: String, protection: TitleProtection?
    ) throws -> [ResourceRecord] {
        try db.write { db in
            guard var title = try db.fetchOne(TitleRecord.self, key: token) else { return [] }
            for (i, r) in renditions.enumerated() {
                var record = RenditionRecord(
                    id: nil, token: token, position: firstRendition + i, kind: r.kind, sourceURL: r.sourceURL,
                    localPath: r.localPath, playlist: r.playlist, language: r.language)
                record.live = states.indices.contains(i) ? states[i] : nil
                try db.insert(&record)
            }
            title.masterPlaylist = masterPlaylist
            title.protection = protection
            try db.update(title)
            let files = files.map { LiveFile(resource: $0, isGap: false) }
            return try Self.appendFiles(db, token: token, files: files, keys: keys)
        }
    }

    /// Inserts `files` after every existing file of `token` and `keys` after its keys; returns the files to fetch.
    static func appendFiles(_ db: StoreConnection, token: String, files: [LiveFile], keys: [PlannedKey]) throws
        -> [ResourceRecord]
    {
        var position = try db.value(Int.self, "SELECT MAX(position) FROM resource WHERE token = ?", [token]) ?? -1
        var added: [ResourceRecord] = []
        for file in files {
            position += 1
            let r = file.resource
            var row = ResourceRecord(
                id: nil, token: token, position: position, rendition: r.rendition, kind: r.kind, url: r.url,
                rangeOffset: r.rangeOffset, rangeLength: r.rangeLength, localPath: r.localPath,
                container: r.container, encrypted: r.encrypted, duration: r.duration,
                state: file.isGap ? .gap : .pending, attempts: 0, bytes: nil, sha256: nil, contentLength: nil,
                lastError: nil)
            try db.insert(&row)
            if !file.isGap { added.append(row) }
        }
        var keyPosition = try db.value(Int.self, "SELECT MAX(position) FROM contentKey WHERE token = ?", [token]) ?? -1
        for k in keys {
            keyPosition += 1
            try db.insert(
                ContentKeyRecord(
                    token: token, position: keyPosition, uri: k.uri, method: k.method, wrapped: nil,
                    keyFormat: k.keyFormat, keyID: k.keyID))
        }
        return added
    }

    /// A recorded segment that could not be had (it left the window): state `gap`, and its entry in the
    /// offline playlist gets `EXT-X-GAP`. Its file, if any was started, is the caller's to remove.
    public func markGap(_ resource: ResourceRecord, reason: String) throws {
        try db.write { db in
            var r = resource
            r.state = .gap
            r.lastError = reason
            r.bytes = nil
            r.sha256 = nil
            try db.update(r)
            guard
                var rendition = try db.fetchOne(
                    RenditionRecord.all().forTitle(r.token).filter(RenditionRecord.Columns.position == r.rendition))
            else { return }
            let folder = (rendition.localPath as NSString).deletingLastPathComponent
            let name = folder.isEmpty ? r.localPath : String(r.localPath.dropFirst(folder.count + 1))
            var lines = rendition.playlist.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if let i = lines.firstIndex(of: name), i == 0 || lines[i - 1] != "#EXT-X-GAP" {
                lines.insert("#EXT-X-GAP", at: i)
                rendition.playlist = lines.joined(separator: "\n")
                try db.update(rendition)
            }
        }
    }

    /// The recording of `url` still in progress (not ended, not final), if any.
    public func recordingInProgress(url: String) throws -> TitleRecord? {
        try db.read { db in
            try db.fetchOne(
                TitleRecord.filter(TitleRecord.Columns.url == url).filter(TitleRecord.Columns.record != nil)
                    .filter(TitleRecord.Columns.recordingEndedAt == nil)
                    .filter(![TitleState.completed, .canceled, .failed].contains(TitleRecord.Columns.state))
                    .order(TitleRecord.Columns.requestedAt))
        }
    }

    /// Replaces a rendition's offline playlist and live state (a recording that ended becomes VOD).
    public func setRenditionPlaylist(token: String, rendition: Int, playlist: String, live: String?) throws {
        try db.write { db in
            try db.execute(
                "UPDATE rendition SET playlist = ?, live = ? WHERE token = ? AND position = ?",
                [playlist, live, token, rendition])
        }
    }

    /// The segments (and gaps) of each rendition in playlist order, without init sections: a recording's
    /// timeline.
    public func timeline(token: String) throws -> [Int: [ResourceRecord]] {
        try db.read { db in
            let rows = try db.fetchAll(
                ResourceRecord.all().forTitle(token)
                    .filter([PlannedResource.Kind.segment, .subtitle].contains(ResourceRecord.Columns.kind))
                    .orderedByPosition())
            return Dictionary(grouping: rows, by: \.rendition)
        }
    }
}
