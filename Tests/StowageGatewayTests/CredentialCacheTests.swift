import Synchronization
import Testing

@testable import StowageGateway

/// The credential cache under load, on a clock the test moves: one round trip for many who ask at once, a
/// refresh ahead of the end, and a revocation seen within the entry's life.
@Suite("Credential cache")
struct CredentialCacheTests {
    final class Scheduler: Sendable {
        let calls = Mutex(0)
        let revoked = Mutex(false)

        func check() async throws -> Principal {
            calls.withLock { $0 += 1 }
            try await Task.sleep(for: .milliseconds(50))  // a round trip, while others ask
            if revoked.withLock({ $0 }) { throw GatewayError.unauthorized("revoked") }
            return .device("tv")
        }
    }

    @Test func manyAskingAtOnceShareOneRoundTripAndARevocationIsSeenWithinTheEntrysLife() async throws {
        let now = Mutex(100.0)
        let cache = CredentialCache(clock: { now.withLock { $0 } })
        let scheduler = Scheduler()
        try await withThrowingTaskGroup(of: Principal.self) { group in
            for _ in 0..<64 { group.addTask { try await cache.principal("k") { try await scheduler.check() } } }
            for try await principal in group { #expect(principal == .device("tv")) }
        }
        #expect(scheduler.calls.withLock { $0 } == 1, "64 requests, one round trip")

        // Past half its life: served at once, and checked again in the background.
        now.withLock { $0 += 0.6 }
        scheduler.revoked.withLock { $0 = true }
        #expect(try await cache.principal("k") { try await scheduler.check() } == .device("tv"))
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if case .bad? = cache.lookup("k") { break }
            await Task.yield()
        }
        #expect(scheduler.calls.withLock { $0 } == 2, "one refresh")
        await #expect(throws: GatewayError.self) { try await cache.principal("k") { try await scheduler.check() } }
        #expect(scheduler.calls.withLock { $0 } == 2, "the refusal is kept too")
    }
}
