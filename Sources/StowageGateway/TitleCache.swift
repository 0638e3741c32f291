import Foundation
import StowageProtocol
import Synchronization

/// Finds the title a `/titles/<key>/` path names — by token (`status`), else by caller-chosen id (`lookup`)
/// — and keeps the answer a few seconds, so a player's stream of segment requests costs one scheduler
/// round trip per few seconds, not one per segment. Concurrent lookups of one key share one round trip, and an
/// answer past half its life is looked up again in the background while it is still served, so under load no
/// request waits for the scheduler. (A deleted title's files are gone from disk at once; its entry only names
/// where they were.)
final class TitleCache: Sendable {
    private struct Entry {
        var status: TitleStatus
        var at: Double
    }

    private let backend: any GatewayBackend
    private let clock: @Sendable () -> Double
    private let ttl: Double
    private let entries = Mutex<[String: Entry]>([:])
    private let asking = Mutex<[String: Task<TitleStatus, any Error>]>([:])
    /// While the scheduler does not answer, an answer older than `ttl` is served (``SchedulerOutage``).
    private let outage: SchedulerOutage

    init(
        backend: any GatewayBackend, clock: @escaping @Sendable () -> Double, ttl: Double = 3,
        outage: SchedulerOutage = SchedulerOutage()
    ) {
        self.backend = backend
        self.clock = clock
        self.ttl = ttl
        self.outage = outage
    }

    /// The title named `key`, or `not-found`. While the scheduler does not answer, the status held (as
    /// ``SchedulerOutage`` allows).
    func title(_ key: String) async throws -> TitleStatus {
        if let held = known(key) { return held }
        do {
            return try await ask(key).value
        } catch  where SchedulerOutage.isSilence(error) {
            if let hit = entries.withLock({ $0[key] }), outage.serves(answeredAt: hit.at, now: clock()) {
                return hit.status
            }
            throw error
        }
    }

    /// The title named `key` when a fresh answer is kept (looked up again in the background past half its life),
    /// or one held while the scheduler does not answer (``SchedulerOutage``); nil otherwise. Never waits: the title
    /// hot path asks it on an event loop.
    func known(_ key: String) -> TitleStatus? {
        let now = clock()
        guard let hit = entries.withLock({ $0[key] }),
            now - hit.at <= ttl || outage.serves(answeredAt: hit.at, now: now)
        else { return nil }
        if now - hit.at > ttl / 2 { _ = ask(key) }
        return hit.status
    }

    /// The one lookup of `key` under way, started when there is none.
    private func ask(_ key: String) -> Task<TitleStatus, any Error> {
        asking.withLock { asking in
            if let running = asking[key] { return running }
            let task = Task { try await self.looked(key) }
            asking[key] = task
            return task
        }
    }

    private func looked(_ key: String) async throws -> TitleStatus {
        defer { _ = asking.withLock { $0.removeValue(forKey: key) } }
        let status: TitleStatus
        do {
            status = try await backend.status(token: key)
        } catch  where SchedulerOutage.isSilence(error) {
            outage.failed(now: clock())
            throw error
        } catch let error as GatewayError where error.code == .notFound {
            do {
                status = try await backend.lookup(id: key, url: nil)
            } catch let error as GatewayError where error.code == .notFound {
                entries.withLock { _ = $0.removeValue(forKey: key) }
                throw GatewayError.notFound("no title \(key)")
            }
        }
        outage.answered()
        let now = clock()
        entries.withLock { entries in
            if entries.count > 1024 { entries = entries.filter { now - $0.value.at <= ttl } }
            entries[key] = Entry(status: status, at: now)
        }
        return status
    }

    /// Forgets what is kept (after a management action).
    func invalidate() { entries.withLock { $0 = [:] } }
}
