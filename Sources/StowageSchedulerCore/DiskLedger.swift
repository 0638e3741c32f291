import StowageProtocol

/// Decides whether a title fits on disk, counting space already promised to titles still downloading.
public struct DiskLedger: Sendable {
    /// Bytes always left free.
    public var cushion: Int64

    /// A ledger keeping `cushion` bytes free.
    public init(cushion: Int64) { self.cushion = cushion }

    /// A title still owed space: its estimate less what it already stored.
    public struct Reservation: Sendable {
        public var estimate: Int64
        public var stored: Int64
        /// A title estimated at `estimate` bytes that stored `stored` so far.
        public init(estimate: Int64, stored: Int64) {
            self.estimate = estimate
            self.stored = stored
        }
        var outstanding: Int64 { max(0, estimate.saturatingSubtracting(stored)) }
    }

    /// nil when `need` fits; otherwise why not, with the figures a person needs to act.
    public func refusal(need: Int64, free: Int64, others: [Reservation]) -> String? {
        // Estimates come from playlists and peers: the sums saturate rather than trap on a hostile one.
        let promised = OutsideNumbers.sum(others.map(\.outstanding))
        guard OutsideNumbers.sum([need, promised, cushion]) > free else { return nil }
        let downloading = others.filter { $0.outstanding > 0 }.count
        return "needs about \(Self.describe(need)) but only \(Self.describe(free)) is free, "
            + "\(Self.describe(promised)) of it promised to \(downloading) title(s) still downloading, "
            + "and \(Self.describe(cushion)) is kept as a cushion: "
            + "free some space or lower the scheduler's --disk-cushion"
    }

    public static func describe(_ n: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(n)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(n) B" : "\((value * 10).rounded() / 10) \(units[unit])"
    }
}
