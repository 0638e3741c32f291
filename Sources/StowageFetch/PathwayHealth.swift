import Foundation
import StowageProtocol
import Synchronization

/// What this worker learnt of the places files come from: an origin whose fetch just failed (refused, unreachable,
/// stalled, an HTTP error) is tried after the others for a while, so a host that is down costs one failure, not one
/// per file (each file's own URL first, then its ``FetchWork/alternates``, is the order otherwise).
public final class PathwayHealth: Sendable {
    /// How long a failed origin goes last: long enough for a batch of files, short enough to find it back soon.
    public static let penalty: Duration = .seconds(60)

    /// One per worker process.
    public static let shared = PathwayHealth()

    private let failedAt = Mutex<[String: ContinuousClock.Instant]>([:])

    public init() {}

    /// `urls` (a file's own URL, then its alternates) with those whose origin failed in the last ``penalty`` moved
    /// after the rest, each with its position in `urls`.
    public func order(_ urls: [String], now: ContinuousClock.Instant = .now) -> [(index: Int, url: String)] {
        let all = urls.enumerated().map { (index: $0.offset, url: $0.element) }
        guard urls.count > 1 else { return all }  // most files: no lock taken
        let failed = failedAt.withLock { map in
            map = map.filter { now - $0.value < Self.penalty }
            return Set(map.keys)
        }
        guard !failed.isEmpty else { return all }
        let isFailed = { (url: String) in PlannedPathway.origin(of: url).map(failed.contains) ?? false }
        return all.filter { !isFailed($0.url) } + all.filter { isFailed($0.url) }
    }

    /// `url`'s origin failed just now.
    public func failed(_ url: String, now: ContinuousClock.Instant = .now) {
        guard let origin = PlannedPathway.origin(of: url) else { return }
        failedAt.withLock { map in
            if map.count > 1000 { map.removeAll() }
            map[origin] = now
        }
    }

    /// `url`'s origin answered: it is no longer put last.
    public func answered(_ url: String) {
        guard let origin = PlannedPathway.origin(of: url) else { return }
        _ = failedAt.withLock { $0.removeValue(forKey: origin) }
    }
}
