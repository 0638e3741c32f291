import StowageProtocol

/// The rules of a title filled from a peer box (`submit --from-peer`), per file: what the peer delivers must hash to
/// the SHA-256 of the peer's manifest, and a file the peer lacks or serves wrong comes from the origin instead, while
/// a peer that cannot be reached is waited for like an origin (the title's files are to come from it).
public enum PeerFill {
    /// Where a file taken from the peer goes after a failed fetch.
    public enum Next: Sendable, Equatable {
        /// Tried again from the peer with the usual backoff; past the budget a `network` failure suspends the
        /// title until the peer answers (its probe), as for an origin.
        case retry
        /// Taken from the origin from now on (the peer answered, but not with the file).
        case fromOrigin
    }

    /// After a fetch from the peer failed with `code`: the peer's own answers (an HTTP status such as 404, a file
    /// that fails its container check, a refused address) send the file to the origin; connectivity and this box's
    /// own troubles (a full disk, I/O, a canceled task) say nothing about the peer's copy.
    /// An answer cut for its pace (`slowAnswer`) is the peer's own too: a copy that slow is not waited for again.
    public static func next(after code: ErrorCode, slowAnswer: Bool = false) -> Next {
        if slowAnswer { return .fromOrigin }
        switch code {
        case .network, .diskFull, .quota, .io, .canceled, .internal: return .retry
        default: return .fromOrigin
        }
    }

    /// Whether a copy that hashed to `reported` (nil: no hash was taken) is the peer's file of hash `expected`
    /// (hex, either case).
    public static func accepts(reported: String?, expected: String) -> Bool {
        guard let reported else { return false }
        return reported.lowercased() == expected.lowercased()
    }
}
