/// What a plan taken from a peer box's manifest says of the title beyond its files (``ResolvedPlan/peer``): the
/// box that fills from it makes the title's URL the origin's source and takes the peer's name unless it has one.
public struct PeerTitle: Codable, Sendable, Equatable {
    /// The title's source URL at the origin (``PeerManifest/source``).
    public var source: String
    /// The title's name on the peer.
    public var name: String?

    public init(source: String, name: String?) {
        self.source = source
        self.name = name
    }
}

extension PeerManifest {
    /// The plan a box fills by (``plan``), with each file the peer holds verified carrying the peer's SHA-256 and
    /// the title's source and name: what a download worker's resolve of a peer title answers, so the manifest's
    /// hashes reach the scheduler in the plan itself.
    public var fillPlan: ResolvedPlan {
        var out = plan
        for (i, file) in files.enumerated() where file.sha256 != nil {
            out.resources[i].peerSHA256 = file.sha256?.lowercased()
        }
        out.peer = PeerTitle(source: source, name: name)
        return out
    }
}
