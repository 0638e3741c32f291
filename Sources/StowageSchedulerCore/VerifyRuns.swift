/// Verifications of completed titles in progress (`stowctl verify`, and the background scrub), and when the
/// scrub last checked each title. Pure value; the scrub's times are wall-clock seconds (titles' `endedAt`).
public struct VerifyRuns: Sendable {
    /// One verification of a completed title.
    public struct Run: Sendable, Equatable {
        /// Bad files are fetched again (otherwise they are only listed).
        public var repair: Bool
        /// A background scrub (the I/O budget applies; the title stays playable while it runs).
        public var scrub: Bool
        /// Why each bad file failed, in the order the results came.
        public var bad: [String] = []
    }

    /// How a run ends once nothing is left to check.
    public enum Ending: Sendable, Equatable {
        /// A scrub found every file good: nothing changes but the record of it.
        case cleanScrub
        /// Files failed (a run without repair): the title is completed with an integrity error listing them.
        case badFiles([String])
    }

    /// Runs in progress, by title.
    public private(set) var runs: [String: Run] = [:]
    /// When the scrub last started on each title.
    public private(set) var lastScrubbed: [String: Double] = [:]

    /// No runs.
    public init() {}

    /// The run in progress for a title.
    public subscript(token: String) -> Run? { runs[token] }

    /// Whether a background scrub runs (one title at a time).
    public var scrubRunning: Bool { runs.values.contains(where: \.scrub) }

    /// Whether a title's run is a background scrub.
    public func isScrub(_ token: String) -> Bool { runs[token]?.scrub == true }

    /// Starts (or restarts) a run for a title.
    public mutating func start(_ token: String, repair: Bool, scrub: Bool = false) {
        runs[token] = Run(repair: repair, scrub: scrub)
    }

    /// A check failed. During a run without repair the bad file is recorded (returns true); otherwise
    /// (no run, or a repair run) returns false: the file takes the normal path and is fetched again.
    public mutating func recordFailure(_ token: String, reason: String) -> Bool {
        guard runs[token]?.repair == false else { return false }
        runs[token]?.bad.append(reason)
        return true
    }

    /// Nothing is left to check for the title: how its run ends. A clean verify run (or no run) gives nil and
    /// is left to complete like a download; the other runs end here.
    public mutating func finish(_ token: String) -> Ending? {
        guard let run = runs[token] else { return nil }
        if run.bad.isEmpty {
            guard run.scrub else { return nil }
            runs[token] = nil
            return .cleanScrub
        }
        runs[token] = nil
        return .badFiles(run.bad)
    }

    /// Forgets a title's run (completed, stopped or removed).
    public mutating func forget(_ token: String) {
        runs[token] = nil
    }

    /// A completed title that may be scrubbed: its token and when it completed (wall clock).
    public struct Candidate: Sendable, Equatable {
        public var token: String
        public var endedAt: Double?
        /// A completed title.
        public init(token: String, endedAt: Double?) {
            self.token = token
            self.endedAt = endedAt
        }
    }

    /// The background scrub checks one title at a time: when no scrub runs, the candidate checked (or
    /// completed) longest ago, if that is at least `interval` seconds ago. It counts as scrubbed from `now`.
    public mutating func nextScrub(among candidates: [Candidate], now: Double, interval: Double) -> String? {
        guard interval > 0, !scrubRunning else { return nil }
        var next: (token: String, last: Double)?
        for c in candidates {
            let last = lastScrubbed[c.token] ?? c.endedAt ?? 0
            guard now - last >= interval else { continue }
            if let n = next, last >= n.last { continue }
            next = (c.token, last)
        }
        guard let next else { return nil }
        lastScrubbed[next.token] = now
        return next.token
    }
}
