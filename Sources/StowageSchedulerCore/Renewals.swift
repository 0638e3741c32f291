/// License work under way beside a title's own: renewals queued or running, and the key-only license tasks
/// of recordings that met new keys (task id → the key positions asked for).
public struct Renewals: Sendable, Equatable, TitleScoped {
    private var renewing: Set<String> = []
    private var keyRequests: [String: [Int]] = [:]

    public init() {}

    /// Whether a renewal of the title is queued or running.
    public func isRenewing(_ token: String) -> Bool { renewing.contains(token) }

    /// A renewal was queued; false if one already was.
    public mutating func start(_ token: String) -> Bool { renewing.insert(token).inserted }

    /// The renewal ended (granted, failed or waiting for the network).
    public mutating func end(_ token: String) { renewing.remove(token) }

    /// A key-only task went out for the keys at `positions`.
    public mutating func askedKeys(_ positions: [Int], task: String) { keyRequests[task] = positions }

    /// Whether `task` is a key-only task.
    public func isKeyRequest(_ task: String) -> Bool { keyRequests[task] != nil }

    /// The positions a key-only task asked for (forgotten now).
    public mutating func takeKeyRequest(_ task: String) -> [Int]? { keyRequests.removeValue(forKey: task) }

    public mutating func forget(_ token: String) { renewing.remove(token) }
}
