import Foundation

/// Exponential backoff: `base`, twice that, four times … capped at `cap`, then times a jitter factor.
///
/// One formula for every place that waits longer after each failure (the scheduler's retries and network
/// probes, a worker's reconnects), so they differ only in their numbers. Pure: the caller counts the
/// attempts and, where many waits should spread out, draws the jitter factor (``jitter``).
public struct Backoff: Sendable, Equatable {
    /// The first wait, seconds.
    public var base: Double
    /// The longest wait before jitter, seconds.
    public var cap: Double
    /// The range a random jitter factor is drawn from (`1...1`: none).
    public var jitter: ClosedRange<Double>

    /// Waits of `base`, doubling up to `cap`, times a factor drawn from `jitter`.
    public init(base: Double, cap: Double, jitter: ClosedRange<Double> = 1...1) {
        self.base = base
        self.cap = cap
        self.jitter = jitter
    }

    /// The wait after `failures` earlier failed attempts (0: the first wait, `base`), times `factor`.
    public func delay(afterFailures failures: Int, factor: Double = 1) -> Double {
        // The exponent stops at 62, long past any cap, so even a zero base never meets an infinity.
        min(cap, base * pow(2, Double(min(max(0, failures), 62)))) * factor
    }

    /// ``delay(afterFailures:factor:)`` with a factor drawn from ``jitter``.
    public func jitteredDelay(afterFailures failures: Int) -> Double {
        delay(afterFailures: failures, factor: Double.random(in: jitter))
    }
}

extension Backoff {
    /// A worker reconnecting to a silent scheduler: 1 s, 2 s, 4 s … capped at 32 s, no jitter.
    public static let reconnect = Backoff(
        base: Double(WireProtocol.reconnectInitialMilliseconds) / 1000,
        cap: Double(WireProtocol.reconnectMaxMilliseconds) / 1000)
}
