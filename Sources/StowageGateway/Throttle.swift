import StowageProtocol

/// Failed credentials per client address, and what the next attempt from that address is told: a pure value
/// (state + event + `now` → decision), so its backoff is tested in milliseconds with a made-up clock.
///
/// The first ``Policy/freeFailures`` failures cost nothing; each one after that closes the address for
/// ``Policy/baseDelay`` doubled per extra failure, up to ``Policy/maxDelay``. An address that stays quiet for
/// ``Policy/forgetAfter`` starts afresh, and a success clears it. At most ``Policy/maxAddresses`` addresses are
/// remembered — a client that cycles through addresses cannot grow the gateway's memory; when full, the addresses
/// idle longest are forgotten first.
public struct Throttle: Sendable, Equatable {
    /// How hard the throttle is.
    public struct Policy: Sendable, Equatable {
        public var freeFailures: Int
        public var baseDelay: Double
        public var maxDelay: Double
        public var forgetAfter: Double
        public var maxAddresses: Int

        public init(
            freeFailures: Int = 5, baseDelay: Double = 1, maxDelay: Double = 300, forgetAfter: Double = 900,
            maxAddresses: Int = 4096
        ) {
            self.freeFailures = freeFailures
            self.baseDelay = baseDelay
            self.maxDelay = maxDelay
            self.forgetAfter = forgetAfter
            self.maxAddresses = maxAddresses
        }
    }

    /// What an attempt from an address may do now.
    public enum Decision: Sendable, Equatable {
        case allow
        /// Refused: try again after this many seconds (whole, at least 1: `Retry-After`).
        case wait(seconds: Int)
    }

    struct Record: Sendable, Equatable {
        var failures: Int
        var lastFailure: Double
        var closedUntil: Double
    }

    public let policy: Policy
    private(set) var records: [String: Record] = [:]

    public init(policy: Policy = Policy()) { self.policy = policy }

    /// Whether an attempt from `address` at `now` may go ahead.
    public func decision(for address: String, now: Double) -> Decision {
        guard let record = records[address], now - record.lastFailure < policy.forgetAfter,
            record.closedUntil > now
        else { return .allow }
        return .wait(seconds: max(1, Int((record.closedUntil - now).rounded(.up))))
    }

    /// A failed credential from `address` at `now`; returns the decision for its next attempt.
    @discardableResult
    public mutating func failed(_ address: String, now: Double) -> Decision {
        var record = records[address] ?? Record(failures: 0, lastFailure: now, closedUntil: now)
        if now - record.lastFailure >= policy.forgetAfter {
            record = Record(failures: 0, lastFailure: now, closedUntil: now)
        }
        record.failures += 1
        record.lastFailure = now
        let extra = record.failures - policy.freeFailures
        if extra > 0 {
            let delay = Backoff(base: policy.baseDelay, cap: policy.maxDelay).delay(afterFailures: extra - 1)
            record.closedUntil = max(record.closedUntil, now + delay)
        }
        if records[address] == nil { makeRoom(now: now) }
        records[address] = record
        return decision(for: address, now: now)
    }

    /// A good credential from `address`: its failures are forgotten.
    public mutating func succeeded(_ address: String) {
        records[address] = nil
    }

    /// How many addresses are remembered.
    public var count: Int { records.count }

    /// Drops forgotten addresses, then (still full) the tenth idle longest.
    private mutating func makeRoom(now: Double) {
        guard records.count >= policy.maxAddresses else { return }
        records = records.filter { now - $0.value.lastFailure < policy.forgetAfter && $0.value.closedUntil > now }
        if records.count >= policy.maxAddresses {
            let excess = records.count - policy.maxAddresses + max(1, policy.maxAddresses / 10)
            for (old, _) in records.sorted(by: { $0.value.lastFailure < $1.value.lastFailure }).prefix(excess) {
                records[old] = nil
            }
        }
    }
}
