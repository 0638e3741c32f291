import Synchronization

/// The scheduler's answers about device credentials, kept briefly: a good one ``goodSeconds`` (one second: a
/// player's burst of segment requests costs one check, and a revocation takes effect at once), a bad one
/// ``badSeconds`` (three: a flood of the same wrong secret or signature does not queue the scheduler). At most
/// ``maxEntries`` are kept; stale ones are dropped first, then all (the cache only saves round trips).
///
/// Under load no request waits for the scheduler: concurrent checks of one credential share one round trip
/// (64 players whose entry expired together asked 64 times, in a queue, and the last waited for all of them),
/// and a good answer older than half its life is checked again in the background while it is still served. A
/// revocation therefore takes effect within half a second plus a round trip while the device keeps asking, and
/// within ``goodSeconds`` when it does not.
final class CredentialCache: Sendable {
    enum Answer: Sendable {
        case good(Principal)
        case bad(GatewayError)
    }

    private struct Entry {
        var answer: Answer
        var at: Double
    }

    let goodSeconds: Double
    let badSeconds: Double
    let maxEntries: Int
    private let clock: @Sendable () -> Double
    private let entries = Mutex<[String: Entry]>([:])
    private let asking = Mutex<[String: Task<Answer, any Error>]>([:])
    /// While the scheduler does not answer, a good answer older than `goodSeconds` is served (``SchedulerOutage``).
    private let outage: SchedulerOutage

    init(
        goodSeconds: Double = 1, badSeconds: Double = 3, maxEntries: Int = 4096,
        clock: @escaping @Sendable () -> Double, outage: SchedulerOutage = SchedulerOutage()
    ) {
        self.outage = outage
        self.goodSeconds = goodSeconds
        self.badSeconds = badSeconds
        self.maxEntries = maxEntries
        self.clock = clock
    }

    /// The fresh answer kept under `key`, if any.
    func lookup(_ key: String) -> Answer? {
        let now = clock()
        guard let entry = entries.withLock({ $0[key] }), fresh(entry, now: now) else { return nil }
        return entry.answer
    }

    /// The principal of a fresh good answer for `key`, refreshed in the background past half its life like
    /// ``principal(_:check:)``; nil when there is none (the caller takes the full path). Never waits.
    func knownGood(_ key: String, check: @escaping @Sendable () async throws -> Principal) -> Principal? {
        let now = clock()
        guard let entry = entries.withLock({ $0[key] }), fresh(entry, now: now),
            case .good(let principal) = entry.answer
        else { return nil }
        if now - entry.at > goodSeconds / 2 { _ = ask(key, check) }
        return principal
    }

    /// The principal under `key`: kept, or asked with `check` (once for all who ask at the same time) and kept.
    /// A refusal (`unauthorized` or `not-found`) is thrown as `unauthorized`; other failures (the scheduler not
    /// answering) are not kept. A good answer past half its life is refreshed in the background.
    func principal(_ key: String, check: @escaping @Sendable () async throws -> Principal) async throws -> Principal {
        let now = clock()
        if let entry = entries.withLock({ $0[key] }), fresh(entry, now: now) {
            if case .good = entry.answer, now - entry.at > goodSeconds / 2 { _ = ask(key, check) }
            return try Self.result(entry.answer)
        }
        do {
            return try Self.result(try await ask(key, check).value)
        } catch  where SchedulerOutage.isSilence(error) {
            if let entry = entries.withLock({ $0[key] }), case .good(let principal) = entry.answer,
                outage.serves(answeredAt: entry.at, now: clock())
            {
                return principal
            }
            throw error
        }
    }

    /// The one check of `key` under way, started when there is none.
    private func ask(_ key: String, _ check: @escaping @Sendable () async throws -> Principal) -> Task<
        Answer, any Error
    > {
        asking.withLock { asking in
            if let running = asking[key] { return running }
            let task = Task { try await self.checked(key, check) }
            asking[key] = task
            return task
        }
    }

    private func checked(_ key: String, _ check: @Sendable () async throws -> Principal) async throws -> Answer {
        defer { _ = asking.withLock { $0.removeValue(forKey: key) } }
        let answer: Answer
        do {
            answer = .good(try await check())
        } catch let error as GatewayError where error.code == .unauthorized || error.code == .notFound {
            answer = .bad(GatewayError.unauthorized(error.message))
        } catch  where SchedulerOutage.isSilence(error) {
            outage.failed(now: clock())
            throw error
        }
        outage.answered()
        let now = clock()
        entries.withLock { entries in
            if entries.count >= maxEntries { entries = entries.filter { fresh($0.value, now: now) } }
            if entries.count >= maxEntries { entries = [:] }
            entries[key] = Entry(answer: answer, at: now)
        }
        return answer
    }

    private static func result(_ answer: Answer) throws -> Principal {
        switch answer {
        case .good(let principal): return principal
        case .bad(let error): throw error
        }
    }

    /// Kept and served: a good answer within `goodSeconds` (or held while the scheduler does not answer), a bad
    /// one within `badSeconds`.
    private func fresh(_ entry: Entry, now: Double) -> Bool {
        switch entry.answer {
        case .good: now - entry.at <= goodSeconds || outage.serves(answeredAt: entry.at, now: now)
        case .bad: now - entry.at <= badSeconds
        }
    }
}
