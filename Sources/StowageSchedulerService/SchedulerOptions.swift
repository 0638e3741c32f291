import Foundation
import StowageBundle
import StowageLicensing
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// How the scheduler runs (flags and environment of `stowage-scheduler`).
public struct SchedulerOptions: Sendable {
    /// Where the store, the titles and the ipc endpoint live.
    public var home: StowageHome
    /// Seconds a leader's lease in the store lasts unless renewed (`--leader-lease`): schedulers sharing a store
    /// take over from a leader that stopped renewing after this long.
    public var leaderLease: Double = 10
    /// Where the store lives (`--store`); nil: the embedded SQLite in the home, as always.
    public var store: StoreLocation?
    /// Extra endpoints to bind (e.g. `tcp://0.0.0.0:7700`); the ipc endpoint in `run/` is always bound.
    public var binds: [String]
    /// Limits given as flags or environment at start: they override the stored ones for this run.
    public var limitOverrides: LimitSettings
    /// Fetch attempts per resource before the title fails (or, for connectivity, waits for the network).
    public var maxAttempts = 8
    /// A title waiting for the network this long fails with `network` (nil = it waits for ever).
    public var giveUpAfter: Double?
    /// Renew licenses automatically this many seconds before they end (nil = never).
    public var autoRenewBefore: Double?
    /// Re-verify completed titles at rest this often (seconds; nil = never), reading at most
    /// `scrubBytesPerSecond` per file check.
    public var scrubInterval: Double?
    public var scrubBytesPerSecond: Int64?
    /// The scheduler's CURVE key pair and the allow-list of client keys: required for tcp endpoints,
    /// which are always CURVE-encrypted and authenticated.
    public var curveKey: CurveKeyPair?
    public var allowList: AllowList?
    /// The only origin hosts titles may be fetched from (submit URLs, playlists, segments, keys,
    /// redirects); nil = any.
    public var allowedHosts: HostAllowList?
    /// Address ranges opened and closed for every title's fetches (`--allow-networks`, `--deny-networks`).
    public var network = NetworkPolicy()
    /// The catalogue the box converges on (`--catalog` and its keys, interval and grace).
    public var catalog = CatalogOptions()
    /// When titles may fetch (`--fill-window`; a title's `--window` replaces it, `--now` ignores both).
    public var fillWindow: FillSchedule?
    /// The bandwidth cap by time of day (`--bandwidth-schedule`), while no cap is set explicitly.
    public var bandwidthSchedule: BandwidthSchedule?
    /// The box's time zone: windows and schedules are local times in it.
    public var timeZone = TimeZone.current
    /// Bytes all titles together may hold (`--quota`; nil: no quota), and seconds after a play during which a
    /// title is never evicted to make room (`--evict-protect`).
    public var quota: Int64?
    public var evictProtect: Double = 3_600
    /// Where events go (`--notify` receivers, secret, expiry notice).
    public var notify = NotifyOptions()
    /// How slow a peer's, the catalogue's or a receiver's answer may be (`--min-body-rate`,
    /// `--body-rate-window`); `total` is a peer file's, the catalogue and notifications take their own.
    public var answerPace = BodyLimits(
        minRate: BodyLimits.defaultMinRate, window: BodyLimits.defaultWindow, total: BodyLimits.peerFileTotal)

    /// Options with the defaults for what is not given.
    public init(home: StowageHome, binds: [String], limitOverrides: LimitSettings = LimitSettings()) {
        self.home = home
        self.binds = binds
        self.limitOverrides = limitOverrides
    }
}
