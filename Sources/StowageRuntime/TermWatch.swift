/// A worker's memory of the schedulers' terms: the highest term any task carried. A task of an older term comes
/// from a scheduler that has been deposed (frozen past its lease, cut off and back): its work is dropped, since
/// the leader of the newer term hands out the same work again.
public struct TermWatch: Sendable, Equatable {
    /// The highest term seen (nil: none yet).
    public private(set) var highest: Int64?

    public init() {}

    /// Whether a task of `term` may run; remembers the term when it is the highest. A task without a term (a
    /// scheduler that predates leadership) always runs.
    public mutating func admits(_ term: Int64?) -> Bool {
        guard let term else { return true }
        if let highest, term < highest { return false }
        highest = term
        return true
    }
}
