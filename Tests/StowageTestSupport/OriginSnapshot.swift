import Foundation

/// What `stowage-origin` counted so far (`GET /__stats`): connections and requests at once, titles at once, and
/// the faults it injected by kind.
public struct OriginSnapshot: Decodable, Sendable {
    public var connections: Int
    public var maxConnections: Int
    public var inFlight: Int
    public var maxInFlight: Int
    public var maxTitlesAtOnce: Int
    public var requests: Int
    public var faults: [String: Int]
}

extension Harness {
    /// The main origin's ``OriginSnapshot``.
    public func originSnapshot() throws -> OriginSnapshot {
        let (status, text) = try TestMedia.shOutput("curl -sf '\(originURL)__stats'", in: root)
        guard status == 0 else { throw HarnessError("GET \(originURL)__stats failed (curl exited \(status))") }
        return try JSONDecoder().decode(OriginSnapshot.self, from: Data(text.utf8))
    }
}
