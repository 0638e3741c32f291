import Foundation
import GRDB
import StowageLicensing
import StowageProtocol

extension ResourceRecord {
    /// Reads a row column by column: a resource is read for every segment the scheduler hands out and every
    /// result it records, where the `Decodable` path cost more than the query. Unknown enum values (written by
    /// a newer version) read as a file to fetch again, of no particular container.
    public init(row: Row) throws {
        typealias C = Columns
        id = row[C.id]
        token = row[C.token]
        position = row[C.position]
        rendition = row[C.rendition]
        kind = (row[C.kind] as String?).flatMap(PlannedResource.Kind.init(rawValue:)) ?? .segment
        url = row[C.url]
        rangeOffset = row[C.rangeOffset]
        rangeLength = row[C.rangeLength]
        localPath = row[C.localPath]
        container = (row[C.container] as String?).flatMap(Container.init(rawValue:)) ?? .other
        encrypted = row[C.encrypted]
        duration = row[C.duration]
        state = (row[C.state] as String?).flatMap(ResourceState.init(rawValue:)) ?? .pending
        attempts = row[C.attempts]
        bytes = row[C.bytes]
        sha256 = row[C.sha256]
        contentLength = row[C.contentLength]
        lastError = row[C.lastError]
        alternates = (row[C.alternates] as String?).map { $0.split(separator: "\n").map(String.init) }
        if let key = row[C.cipherKey] as Int?, let iv = row[C.cipherIV] as String? {
            cipher = SegmentCipher(key: key, iv: iv)
        }
        peerSHA256 = row[C.peerSHA256]
    }

    /// Writes every column (the `Encodable` path's cost, avoided on the per-segment path).
    public func encode(to container: inout PersistenceContainer) {
        typealias C = Columns
        container[C.id] = id
        container[C.token] = token
        container[C.position] = position
        container[C.rendition] = rendition
        container[C.kind] = kind.rawValue
        container[C.url] = url
        container[C.rangeOffset] = rangeOffset
        container[C.rangeLength] = rangeLength
        container[C.localPath] = localPath
        container[C.container] = self.container.rawValue
        container[C.encrypted] = encrypted
        container[C.duration] = duration
        container[C.state] = state.rawValue
        container[C.attempts] = attempts
        container[C.bytes] = bytes
        container[C.sha256] = sha256
        container[C.contentLength] = contentLength
        container[C.lastError] = lastError
        container[C.alternates] = alternates.flatMap { $0.isEmpty ? nil : $0.joined(separator: "\n") }
        container[C.cipherKey] = cipher?.key
        container[C.cipherIV] = cipher?.iv
        container[C.peerSHA256] = peerSHA256
    }
}
