import StowageProtocol

/// Which titles make room for a new one under the box's `--quota`: a pure decision, so the order an operator
/// sees (`stowctl list --evictable`) and the titles the scheduler deletes are the same list.
///
/// The order: titles the catalogue removed (waiting out `--catalog-grace`) first, then the least recently played
/// (a title never played counts from when it completed). Never evicted: a pinned title, one being played, one a
/// device played within ``protect`` seconds, one the catalogue keeps until a date still to come. Victims are taken
/// in that order until the new title fits; when even all of them would not make room, nothing is evicted and the new
/// title waits (`suspended` / `quota`).
public struct EvictionPolicy: Sendable, Equatable {
    /// Bytes all titles together may hold.
    public var quota: Int64
    /// Seconds after a play during which the title is never evicted (`--evict-protect`).
    public var protect: Double

    /// A title that holds bytes, as the policy needs to know it.
    public struct Holding: Sendable, Equatable {
        public var token: String
        /// Bytes it holds (or was promised, while it downloads).
        public var bytes: Int64
        /// Whether it may be evicted at all (a completed title; one under way is not).
        public var evictable: Bool
        /// The catalogue removed it: it goes first.
        public var leftCatalog: Bool
        public var pinned: Bool
        /// A device is playing it now.
        public var playing: Bool
        /// When a device last played it (wall clock; nil: never).
        public var lastPlayedAt: Double?
        /// When it completed (wall clock): stands for the last play of a title never played.
        public var completedAt: Double?
        /// Kept until then (wall clock; the catalogue's `keepUntil`): never evicted before.
        public var keptUntil: Double?

        public init(
            token: String, bytes: Int64, evictable: Bool, leftCatalog: Bool = false, pinned: Bool = false,
            playing: Bool = false, lastPlayedAt: Double? = nil, completedAt: Double? = nil
        ) {
            self.token = token
            self.bytes = bytes
            self.evictable = evictable
            self.leftCatalog = leftCatalog
            self.pinned = pinned
            self.playing = playing
            self.lastPlayedAt = lastPlayedAt
            self.completedAt = completedAt
        }
    }

    /// What admitting a title of some size calls for.
    public enum Verdict: Sendable, Equatable {
        /// It fits as things are.
        case fits
        /// It fits once these titles (tokens, in order) are deleted.
        case evict([String])
        /// Even every evictable title would not make room: it waits. `message` says why, with the figures.
        case wait(message: String)
    }

    public init(quota: Int64, protect: Double) {
        self.quota = quota
        self.protect = protect
    }

    /// Whether `holding` may be evicted at `now` (wall clock).
    public func mayEvict(_ holding: Holding, now: Double) -> Bool {
        guard holding.evictable, !holding.pinned, !holding.playing, now >= holding.keptUntil ?? now else {
            return false
        }
        guard let played = holding.lastPlayedAt else { return true }
        return now - played >= protect
    }

    /// The titles that may be evicted, first victim first.
    public func order(_ holdings: [Holding], now: Double) -> [Holding] {
        holdings.filter { mayEvict($0, now: now) }.sorted { a, b in
            if a.leftCatalog != b.leftCatalog { return a.leftCatalog }
            let (x, y) = (a.lastPlayedAt ?? a.completedAt ?? 0, b.lastPlayedAt ?? b.completedAt ?? 0)
            return x != y ? x < y : a.token < b.token
        }
    }

    /// Admitting a title of `need` bytes beside `holdings` (every other title holding bytes) at `now`.
    public func admit(need: Int64, holdings: [Holding], now: Double) -> Verdict {
        // Sizes come from playlists, peers and bundles: sums saturate rather than trap on a hostile one.
        let used = OutsideNumbers.sum(holdings.map(\.bytes))
        let need = max(0, need)
        if used.saturatingAdding(need) <= quota { return .fits }
        guard need <= quota else {
            return .wait(
                message: "needs about \(DiskLedger.describe(need)) but the quota is \(DiskLedger.describe(quota)): "
                    + "raise the scheduler's --quota or choose a lower bitrate")
        }
        var freed = Int64(0)
        var victims: [String] = []
        for holding in order(holdings, now: now) where (used - freed).saturatingAdding(need) > quota {
            freed = min(used, freed.saturatingAdding(max(0, holding.bytes)))
            victims.append(holding.token)
        }
        if (used - freed).saturatingAdding(need) <= quota { return .evict(victims) }
        let held = holdings.count - order(holdings, now: now).count
        return .wait(
            message: "needs about \(DiskLedger.describe(need)); \(DiskLedger.describe(used)) of the "
                + "\(DiskLedger.describe(quota)) quota is held and only \(DiskLedger.describe(freed)) may be evicted "
                + "(\(held) title(s) pinned, being played, played within the protect window or not completed): "
                + "it waits until room appears (delete or unpin a title, or raise --quota)")
    }
}
