import Foundation
import StowageProtocol
import Synchronization

/// Finds the title a `/titles/<key>/` path names — by token (`status`), else by caller-chosen id (`lookup`)
/// — and keeps the answer a few seconds, so a player's stream of segment requests costs one scheduler
/// round trip per few seconds, not one per segment.
final class TitleCache: Sendable {
    private struct Entry {
        var status: TitleStatus
        var at: Double
    }

    private let backend: any GatewayBackend
    private let clock: @Sendable () -> Double
    private let ttl: Double
    private let entries = Mutex<[String: Entry]>([:])

    init(backend: any GatewayBackend, clock: @escaping @Sendable () -> Double, ttl: Double = 3) {
        self.backend = backend
        self.clock = clock
        self.ttl = ttl
    }

    /// The title named `key`, or `not-found`.
    func title(_ key: String) async throws -> TitleStatus {
        let now = clock()
        if let hit = entries.withLock({ $0[key] }), now - hit.at <= ttl { return hit.status }
        let status: TitleStatus
        do {
            status = try await backend.status(token: key)
        } catch let error as GatewayError where error.code == .notFound {
            do {
                status = try await backend.lookup(id: key, url: nil)
            } catch let error as GatewayError where error.code == .notFound {
                throw GatewayError.notFound("no title \(key)")
            }
        }
        entries.withLock { entries in
            if entries.count > 1024 { entries = entries.filter { now - $0.value.at <= ttl } }
            entries[key] = Entry(status: status, at: now)
        }
        return status
    }

    /// Forgets what is kept (after a management action).
    func invalidate() { entries.withLock { $0 = [:] } }
}
