import StowageProtocol

/// When each rendition of each recording reloads its live playlist next (RFC 8216 §6.3.4), and which
/// recordings stalled. Times are monotonic seconds.
///
/// After a reload that found something new, the next one is due a target duration after the last one
/// *began*; after an unchanged one, half a target duration later; after a failure, with exponential backoff
/// (half a target duration, doubling, at most 30 s). A playlist that has not changed for
/// ``stallFactor`` target durations is stalled (reported; the recording goes on).
public struct LiveReloads: Sendable {
    /// Target durations without change after which a playlist counts as stalled.
    public static let stallFactor = 3.0

    struct Entry: Sendable {
        var dueAt: Double?
        var lastChange: Double
        var target: Double
        var failures = 0
    }

    private var entries: [String: [Int: Entry]] = [:]

    public init() {}

    /// Whether any recording is being reloaded.
    public var isEmpty: Bool { entries.isEmpty }

    /// Starts (or restarts) reloading a rendition: due now.
    public mutating func start(_ token: String, rendition: Int, target: Double, now: Double) {
        let last = entries[token]?[rendition]?.lastChange ?? now
        entries[token, default: [:]][rendition] = Entry(dueAt: now, lastChange: last, target: max(0.5, target))
    }

    /// The reloads due now; each is handed out once (it is due again only after its result).
    public mutating func due(now: Double) -> [(token: String, rendition: Int)] {
        var out: [(String, Int)] = []
        for (token, renditions) in entries {
            for (rendition, entry) in renditions {
                guard let at = entry.dueAt, at <= now else { continue }
                entries[token]?[rendition]?.dueAt = nil
                out.append((token, rendition))
            }
        }
        return out.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
    }

    /// A reload's result: `changed` (new segments, a gap or the end), begun at `startedAt`.
    public mutating func reloaded(
        _ token: String, rendition: Int, changed: Bool, target: Double, startedAt: Double, now: Double
    ) {
        guard var entry = entries[token]?[rendition] else { return }
        entry.target = max(0.5, target)
        entry.failures = 0
        if changed {
            entry.lastChange = now
            entry.dueAt = max(now, startedAt + entry.target)
        } else {
            entry.dueAt = now + entry.target / 2
        }
        entries[token]?[rendition] = entry
    }

    /// A reload failed: it is tried again after a backoff. Returns the failures in a row.
    @discardableResult
    public mutating func failed(_ token: String, rendition: Int, now: Double) -> Int {
        guard var entry = entries[token]?[rendition] else { return 0 }
        entry.failures += 1
        entry.dueAt = now + Self.backoff(target: entry.target, failures: entry.failures)
        entries[token]?[rendition] = entry
        return entry.failures
    }

    /// Half a target duration, doubling with each failure in a row, at most 30 s.
    public static func backoff(target: Double, failures: Int) -> Double {
        Backoff(base: max(0.5, target / 2), cap: 30).delay(afterFailures: failures - 1)
    }

    /// The rendition reached its end: no more reloads.
    public mutating func stop(_ token: String, rendition: Int) {
        entries[token]?[rendition] = nil
        if entries[token]?.isEmpty == true { entries[token] = nil }
    }

    /// The recording stopped, was suspended or ended.
    public mutating func forget(_ token: String) { entries[token] = nil }

    /// Whether a rendition of `token` is being reloaded.
    public func isReloading(_ token: String) -> Bool { entries[token] != nil }

    /// Since when the recording's playlists have not changed, once that is longer than ``stallFactor`` target
    /// durations (the rendition that changed least recently); nil while it updates.
    public func stalledSince(_ token: String, now: Double) -> Double? {
        guard let renditions = entries[token] else { return nil }
        let stalled = renditions.values.filter { now - $0.lastChange >= Self.stallFactor * $0.target }
        return stalled.map(\.lastChange).min()
    }
}
