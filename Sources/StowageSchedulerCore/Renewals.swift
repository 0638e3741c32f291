/// License work under way beside a title's own: renewals queued or running (a recording's key-only license tasks
/// are the recording component's).
public struct Renewals: Sendable, Equatable, TitleScoped {
    private var renewing: Set<String> = []

    public init() {}

    /// Whether a renewal of the title is queued or running.
    public func isRenewing(_ token: String) -> Bool { renewing.contains(token) }

    /// A renewal was queued; false if one already was.
    public mutating func start(_ token: String) -> Bool { renewing.insert(token).inserted }

    /// The renewal ended (granted, failed or waiting for the network).
    public mutating func end(_ token: String) { renewing.remove(token) }

    public mutating func forget(_ token: String) { renewing.remove(token) }
}
