import Foundation
import StowageProtocol

/// The limits in force beside the scheduler core's own: what `stowctl limits` stored, the bandwidth cap (set, or
/// followed from `--bandwidth-schedule`) and the share of it last sent to each download worker, and the disk cushion.
public struct LimitState: Sendable, Equatable {
    /// The limits `stowctl limits` stored (in force after restarts, under this run's start flags).
    public var stored = LimitSettings()
    /// The bandwidth cap in force, bytes a second (nil: none).
    public var bandwidth: Int64?
    /// `--bandwidth-schedule`: the cap by time of day, followed while no cap is set explicitly.
    public var schedule: BandwidthSchedule?
    /// A cap set explicitly (`--bandwidth` at start, `stowctl limits --bandwidth`; 0: none): it wins over the
    /// schedule until `stowctl limits --reset`, so an operator's word is never undone by the clock.
    public var explicitBandwidth: Int64?
    /// The share of the cap last sent to each download worker, by worker id.
    public private(set) var sentShare: [String: Int64] = [:]
    /// Free bytes always kept on the titles' filesystem.
    public var diskCushion: Int64 = LimitSettings.defaults.diskCushion!

    public init() {}

    /// Sets the cap in force: the explicit one, else the schedule's rate at `date` (wall clock, in `zone`), else
    /// none. True when it changed (the workers' shares must be sent again).
    public mutating func followSchedule(at date: Date, in zone: TimeZone) -> Bool {
        let cap: Int64?
        if let explicit = explicitBandwidth {
            cap = explicit > 0 ? explicit : nil
        } else {
            cap = schedule?.bytesPerSecond(at: date, in: zone)
        }
        guard cap != bandwidth else { return false }
        bandwidth = cap
        return true
    }

    /// Each download worker's share of the cap (0: no cap).
    public var share: (_ workers: Int) -> Int64 {
        { [bandwidth] workers in bandwidth.map { $0 > 0 ? max(1, $0 / Int64(max(1, workers))) : 0 } ?? 0 }
    }

    /// The workers among `workers` whose share must be sent (it changed), with the share.
    public func sharesToSend(_ workers: [String]) -> [(worker: String, share: Int64)] {
        let each = share(workers.count)
        return workers.filter { sentShare[$0] != each }.map { ($0, each) }
    }

    /// `share` reached `worker`.
    public mutating func shareSent(_ share: Int64, to worker: String) { sentShare[worker] = share }

    /// Workers gone: their shares are forgotten.
    public mutating func keepShares(of workers: [String]) { sentShare = sentShare.filter { workers.contains($0.key) } }
}
