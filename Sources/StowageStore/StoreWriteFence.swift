/// A check every write transaction makes first (a plain write, and the one transaction of a ``Store/batch(_:)``):
/// a throw refuses the whole write. The scheduler that leads sets one so that a deposed leader changes nothing (the
/// check reads its term in the same transaction as the write).
public protocol StoreWriteFence: AnyObject {
    /// Throws when this process may not write any more; runs inside the write's transaction on `connection`.
    func check(_ connection: StoreConnection) throws
}
