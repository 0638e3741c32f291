/// A check every write transaction makes first (a plain write, and the one transaction of a ``Store/batch(_:)``):
/// a throw refuses the whole write. The scheduler that leads sets one so that a deposed leader changes nothing (the
/// check reads its term in the same transaction as the write).
public protocol StoreWriteFence: AnyObject {
    /// Throws when this process may not write any more; runs inside the write's transaction on `connection`.
    func check(_ connection: StoreConnection) throws
}

/// A write refused because this scheduler's term is over: another scheduler claimed the store.
public struct LeaderDeposed: Error, Sendable, Equatable, CustomStringConvertible {
    /// `deposed`.
    public let code = "deposed"
    /// The term this scheduler led, and the store's term now.
    public let ourTerm: Int64
    public let currentTerm: Int64

    public init(ourTerm: Int64, currentTerm: Int64) {
        self.ourTerm = ourTerm
        self.currentTerm = currentTerm
    }

    public var description: String {
        "[deposed] this scheduler led term \(ourTerm) but the store is at term \(currentTerm): another scheduler "
            + "leads now, so this write is refused and nothing is changed"
    }
}

/// The write fence of a leader: the store's term must still be ours. Records the refusal, so the election sees a
/// fenced write as the end of its term. Not `Sendable`: it lives with its store on the poll loop's thread.
public final class LeaderFence: StoreWriteFence {
    /// The term writes are allowed for (nil: none, every write refused).
    public var term: Int64?
    /// The last refusal, until the election takes it.
    public private(set) var refusal: LeaderDeposed?

    public init(term: Int64? = nil) {
        self.term = term
    }

    public func check(_ connection: StoreConnection) throws {
        let current = try connection.value(Int64.self, LeaderSQL(connection.dialect).fence) ?? 0
        guard let term, current == term else {
            let refused = LeaderDeposed(ourTerm: term ?? 0, currentTerm: current)
            refusal = refused
            throw refused
        }
    }

    /// Takes (and clears) the last refusal.
    public func takeRefusal() -> LeaderDeposed? {
        defer { refusal = nil }
        return refusal
    }
}
