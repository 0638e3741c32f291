import Synchronization

/// Injects faults into answers for media files (never playlists), for chaos tests: connection resets,
/// truncated bodies, 503 with Retry-After, and stalls. Seeded, so a run can be repeated.
public final class FaultInjector: Sendable {
    public enum Fault: String, Sendable, CaseIterable {
        /// Close the connection without answering.
        case reset
        /// Promise the whole body (Content-Length), send half, close.
        case truncate
        /// 503 Service Unavailable with `Retry-After: 1`.
        case unavailable
        /// Wait before answering.
        case stall
    }
    private let probability: Double
    private let state: Mutex<UInt64>

    public init(probability: Double, seed: UInt64) {
        self.probability = probability
        state = Mutex(seed | 1)
    }

    /// The fault for a request, if any.
    func draw(for uri: String) -> Fault? {
        guard probability > 0 else { return nil }
        let path = uri.split(separator: "?").first ?? ""
        guard !path.hasSuffix(".m3u8"), !path.hasPrefix("/__"), !path.hasPrefix("/keys/") else { return nil }
        let (a, b) = state.withLock { s -> (UInt64, UInt64) in
            s ^= s << 13
            s ^= s >> 7
            s ^= s << 17
            let first = s
            s ^= s << 13
            s ^= s >> 7
            s ^= s << 17
            return (first, s)
        }
        guard Double(a % 1_000_000) / 1_000_000 < probability else { return nil }
        return Fault.allCases[Int(b % UInt64(Fault.allCases.count))]
    }
}
