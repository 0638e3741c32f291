/// Expiring URLs: CDNs sign segment and key URLs with a lifetime shorter than a long download. A 401, 403 or
/// 410 on a segment or key re-resolves the title's playlists from its URL (fresh tokens), gives every file not
/// yet verified the URL of the file at the same position in the new plan, and tries the refused item once
/// more; only a refusal of the URL that re-resolution gave it fails the title.
///
/// Over a long download URLs expire again and again: a title re-resolves as often as needed while it makes
/// progress. A refusal fails it only when nothing was fetched since the last re-resolution (fresh URLs
/// refused: a real refusal). A refusal of a URL handed out before the last re-resolution just goes out again
/// with the fresh URL.
///
/// Pure value: which refusals re-resolve, which go out again and which fail, and what waits for each
/// re-resolution. Times are monotonic seconds, the same clock as ``Lease/issuedAt``.
public struct URLRefreshPolicy: Sendable {
    /// HTTP answers that may mean "this signed URL expired".
    public static let refusalStatuses: Set<Int> = [401, 403, 410]

    /// What waits for a re-resolution under way.
    public struct Waiting: Sendable, Equatable {
        /// Files (resource ids) whose fetch was refused.
        public var resources: Set<Int64> = []
        /// The title's keys were refused (its license work waits).
        public var license = false

        /// Nothing waits.
        public init(resources: Set<Int64> = [], license: Bool = false) {
            self.resources = resources
            self.license = license
        }
    }

    /// What to do about a refusal.
    public enum Decision: Sendable, Equatable {
        /// Not a refusal a re-resolution mends (another status, or fresh URLs refused): the title fails.
        case fail
        /// The refused URL was handed out before the last re-resolution: the item goes out again at once, with
        /// the URL the store has now.
        case sendAgain
        /// A re-resolution starts: the caller queues the title's resolve work; the item waits for it.
        case reResolve
        /// A re-resolution is already under way: the item waits for it.
        case awaitReResolution
    }

    /// The last re-resolution of a title: when, and how many fetches succeeded since.
    struct Last: Sendable, Equatable {
        var at: Double
        var fetchesSince = 0
    }

    private var waiting: [String: Waiting] = [:]
    private var last: [String: Last] = [:]
    /// The key URIs a re-resolution for refused keys gave each title: refused again, the title fails.
    private var reResolvedKeyURIs: [String: String] = [:]

    /// No re-resolutions yet.
    public init() {}

    /// Whether a re-resolution of the title is under way.
    public func isReResolving(_ token: String) -> Bool { waiting[token] != nil }

    /// The fetch of a file (resource `id`) of `token` was refused with HTTP `status` (nil: no HTTP answer);
    /// the URL had been handed out at `issuedAt`.
    public mutating func fileRefused(token: String, resource id: Int64, status: Int?, issuedAt: Double) -> Decision {
        guard let status, Self.refusalStatuses.contains(status) else { return .fail }
        if let last = last[token] {
            if issuedAt < last.at { return .sendAgain }
            if last.fetchesSince == 0, waiting[token] == nil { return .fail }
        }
        return wait(token) { $0.resources.insert(id) }
    }

    /// The keys of `token` were refused with HTTP `status`; `keyURIs` identifies the URIs refused (the
    /// title's key URIs, joined).
    public mutating func keysRefused(token: String, status: Int?, keyURIs: String) -> Decision {
        guard let status, Self.refusalStatuses.contains(status), reResolvedKeyURIs[token] != keyURIs else {
            return .fail
        }
        return wait(token) { $0.license = true }
    }

    private mutating func wait(_ token: String, _ add: (inout Waiting) -> Void) -> Decision {
        let fresh = waiting[token] == nil
        add(&waiting[token, default: Waiting()])
        return fresh ? .reResolve : .awaitReResolution
    }

    /// A file of the title was fetched: progress since the last re-resolution.
    public mutating func fetched(_ token: String) {
        last[token]?.fetchesSince += 1
    }

    /// The title's playlists were re-resolved at `now`: returns what waited for it (to go out again).
    public mutating func reResolved(_ token: String, now: Double) -> Waiting {
        last[token] = Last(at: now)
        return waiting.removeValue(forKey: token) ?? Waiting()
    }

    /// The key URIs a re-resolution for refused keys gave the title.
    public mutating func keysReResolved(_ token: String, keyURIs: String) {
        reResolvedKeyURIs[token] = keyURIs
    }

    /// The title's work stopped (paused, failed, canceled, removed): no re-resolution waits and the next
    /// refusal counts as a first one. The key URIs a re-resolution gave it are kept.
    public mutating func forget(_ token: String) {
        waiting[token] = nil
        last[token] = nil
    }
}
