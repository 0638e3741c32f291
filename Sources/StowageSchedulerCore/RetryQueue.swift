import DequeModule
import Foundation
import StowageProtocol

/// Work waiting for its retry time, and the failed attempts of work retried as a whole (resolve and
/// license work; a file counts its attempts in the store). Pure value, driven with monotonic seconds.
public struct RetryQueue: Sendable {
    struct Entry: Sendable {
        var due: Double
        var item: WorkItem
    }

    /// Ordered by due time; items due at the same time keep the order they were scheduled in.
    private var waiting: Deque<Entry> = []
    /// Failed attempts so far, per item.
    public private(set) var attempts: [WorkItem: Int] = [:]

    /// An empty queue.
    public init() {}

    /// How many items wait.
    public var count: Int { waiting.count }

    /// Whether nothing waits.
    public var isEmpty: Bool { waiting.isEmpty }

    /// Queues `item` to go out again at `due`.
    public mutating func schedule(_ item: WorkItem, at due: Double) {
        // Retries are mostly scheduled in due order: the common case appends.
        guard let last = waiting.last, last.due > due else {
            waiting.append(Entry(due: due, item: item))
            return
        }
        var low = 0, high = waiting.count
        while low < high {
            let mid = (low + high) / 2
            if waiting[mid].due <= due { low = mid + 1 } else { high = mid }
        }
        waiting.insert(Entry(due: due, item: item), at: low)
    }

    /// Takes out the items due at `now`, earliest first.
    public mutating func due(now: Double) -> [WorkItem] {
        var out: [WorkItem] = []
        while let first = waiting.first, first.due <= now {
            out.append(first.item)
            waiting.removeFirst()
        }
        return out
    }

    /// Counts a failed attempt of `item`; returns the failed attempts so far.
    public mutating func failed(_ item: WorkItem) -> Int {
        let n = (attempts[item] ?? 0) + 1
        attempts[item] = n
        return n
    }

    /// Forgets the failed attempts of `item` (it gave up, or waits for something else now).
    public mutating func resetAttempts(_ item: WorkItem) {
        attempts[item] = nil
    }

    /// Forgets a title: its waiting work and its failed attempts.
    public mutating func forget(token: String) {
        waiting.removeAll { $0.item.token == token }
        attempts = attempts.filter { $0.key.token != token }
    }

    /// The retries' backoff: 0.5 s, 1 s, 2 s … capped at 30 s, times a random factor between 0.75 and 1.25, so
    /// retries of many items spread out.
    public static let retryBackoff = Backoff(base: 0.5, cap: 30, jitter: 0.75...1.25)

    /// The wait before retrying after failed attempt number `attempt` (1: the first), times `jitter` (by
    /// default drawn from ``retryBackoff``'s range).
    public static func backoff(
        attempt: Int, jitter: Double = Double.random(in: RetryQueue.retryBackoff.jitter)
    ) -> Double {
        retryBackoff.delay(afterFailures: attempt - 1, factor: jitter)
    }
}
