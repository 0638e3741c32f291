import Foundation
import GRDB
import StowageProtocol

/// A title filled from a peer box (`submit --from-peer`): which files are taken from the peer (with the SHA-256
/// the peer's copy must hash to) and how many of the verified ones came from there.
extension Store {
    /// Marks the files at these plan positions as taken from the peer, each with its copy's SHA-256 (lowercase),
    /// in one transaction.
    public func expectFromPeer(token: String, hashes: [Int: String]) throws {
        guard !hashes.isEmpty else { return }
        try db.write { db in
            for (position, sha256) in hashes {
                try db.execute(
                    "UPDATE resource SET peerSHA256 = ? WHERE token = ? AND position = ?",
                    [sha256.lowercased(), token, position])
            }
        }
    }

    /// The SHA-256 a file's bytes must have while it is taken from the peer; nil: from the origin (or no such
    /// file). Read for every file reported fetched of a peer title, without decoding the record.
    public func peerSHA256(ofResource id: Int64) throws -> String? {
        try db.read { try $0.value(String.self, "SELECT peerSHA256 FROM resource WHERE id = ?", [id]) }
    }

    /// Verified files of a title that came from the peer (`status --json` `filesFromPeer`).
    public func filesFromPeer(token: String) throws -> Int {
        try db.read { db in
            try db.value(
                Int.self,
                """
                SELECT COUNT(*) FROM resource
                WHERE token = ? AND state = 'verified' AND peerSHA256 IS NOT NULL
                """, [token]) ?? 0
        }
    }
}
