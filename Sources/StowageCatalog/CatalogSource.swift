import StowageProtocol

/// A peer box a catalogue entry fills from before its origin (`sources` of a ``CatalogEntry``), as `stowctl submit
/// --from-peer` does. A catalogue is published to many boxes, so it never holds the secret: `credential` names a
/// file each box keeps for itself, `$STOWAGE_HOME/peers/<credential>.secret` (the `stowctl devices add NAME --peer`
/// secret the peer gave this box).
public struct CatalogSource: Codable, Sendable, Equatable {
    /// The peer's gateway base URL, e.g. `http://box-a:8480`.
    public var peer: String
    /// The name of this box's secret for that peer: `peers/<credential>.secret` under the box's home.
    public var credential: String
    /// The title's id on the peer; nil: the entry's own id.
    public var id: String?

    public init(peer: String, credential: String, id: String? = nil) {
        self.peer = peer
        self.credential = credential
        self.id = id
    }

    /// What is wrong with it, or nil: a gateway base URL (``PeerSource/problem``), a credential name that is a
    /// plain file name (letters, digits, `.`, `_`, `-`, not starting with `.`, at most 64), an id the peer's
    /// gateway can serve.
    public func problem(entryID: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !credential.isEmpty, credential.count <= 64, !credential.hasPrefix("."),
            credential.allSatisfy({ allowed.contains($0) })
        else {
            return "credential '\(credential.prefix(80))' is not a name of letters, digits, '.', '_' and '-'"
        }
        return PeerSource(url: peer, id: id ?? entryID, secret: "-").problem
    }
}
