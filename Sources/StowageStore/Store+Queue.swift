import GRDB

/// What queuing a resource's work needs of it: its id, state and URL (the URL's host picks the connection), and
/// whether it is fetched from a peer box instead (then the peer's host does).
public struct QueuedResource: Sendable, Equatable {
    public var id: Int64
    public var state: ResourceState
    public var url: String
    public var fromPeer: Bool = false
}

extension Store {
    /// A title's resources in playlist order, four columns of each: what queuing their work reads. A title of tens
    /// of thousands of files is queued when it is licensed and on every recovery; decoding whole records for it
    /// cost several times the query.
    public func queuedResources(token: String) throws -> [QueuedResource] {
        try db.read { db in
            let sql = "SELECT id, state, url, peerSHA256 IS NOT NULL FROM resource WHERE token = ? ORDER BY position"
            var result: [QueuedResource] = []
            for row in try db.rows(sql, [token]) {
                let id: Int64 = row[0]
                let raw: String = row[1]
                guard let state = ResourceState(rawValue: raw) else {
                    throw DatabaseError(message: "resource \(id) is in a state this version does not know: '\(raw)'")
                }
                result.append(QueuedResource(id: id, state: state, url: row[2], fromPeer: row[3]))
            }
            return result
        }
    }
}
