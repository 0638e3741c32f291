import Synchronization

/// The scheduler's answers about device credentials, kept briefly: a good one ``goodSeconds`` (one second: a
/// player's burst of segment requests costs one check, and a revocation takes effect at once), a bad one
/// ``badSeconds`` (three: a flood of the same wrong secret or signature does not queue the scheduler). At most
/// ``maxEntries`` are kept; stale ones are dropped first, then all (the cache only saves round trips).
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

    init(
        goodSeconds: Double = 1, badSeconds: Double = 3, maxEntries: Int = 4096,
        clock: @escaping @Sendable () -> Double
    ) {
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

    /// The principal under `key`: kept, or asked with `check` and kept. A refusal (`unauthorized` or
    /// `not-found`) is thrown as `unauthorized`; other failures (the scheduler not answering) are not kept.
    func principal(_ key: String, check: () async throws -> Principal) async throws -> Principal {
        switch lookup(key) {
        case .good(let principal)?: return principal
        case .bad(let error)?: throw error
        case nil: break
        }
        let answer: Answer
        do {
            answer = .good(try await check())
        } catch let error as GatewayError where error.code == .unauthorized || error.code == .notFound {
            answer = .bad(GatewayError.unauthorized(error.message))
        }
        let now = clock()
        entries.withLock { entries in
            if entries.count >= maxEntries { entries = entries.filter { fresh($0.value, now: now) } }
            if entries.count >= maxEntries { entries = [:] }
            entries[key] = Entry(answer: answer, at: now)
        }
        switch answer {
        case .good(let principal): return principal
        case .bad(let error): throw error
        }
    }

    private func fresh(_ entry: Entry, now: Double) -> Bool {
        switch entry.answer {
        case .good: now - entry.at <= goodSeconds
        case .bad: now - entry.at <= badSeconds
        }
    }
}
