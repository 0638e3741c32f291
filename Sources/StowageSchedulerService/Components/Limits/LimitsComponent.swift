import Foundation
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore

/// The limits in force (``LimitState``): defaults, then what `stowctl limits` stored, then this run's start flags;
/// the bandwidth cap (set, or followed from `--bandwidth-schedule` every second on the wall clock) and each
/// download worker's share of it (sent at every heartbeat when the cap or the workers changed).
final class LimitsComponent: SchedulerComponent {
    let name = "limits"
    /// The store key of the limits set with `stowctl limits`.
    static let setting = "limits"
    private let context: ComponentContext
    private var state = LimitState()
    /// The start flags (`--titles`, `--bandwidth` …): they win over the stored values until `stowctl limits`
    /// changes the same limit.
    private var overrides: LimitSettings
    private let timeZone: TimeZone
    /// The concurrency limits go to the leases' core.
    private let setCore: (Limits) -> Void
    /// The connected download workers' ids.
    private let downloaders: () -> [String]
    /// Sends a worker its share (nil: no cap); false when the worker is gone.
    private let sendShare: (String, Int64?) -> Bool
    private var heartbeat: Every
    private var schedule = Every(seconds: 1)

    /// Reads the stored limits under the start flags (each override logged); throws when what is in force is not
    /// valid (the scheduler does not start).
    init(
        context: ComponentContext, overrides: LimitSettings, schedule: BandwidthSchedule?, timeZone: TimeZone,
        heartbeat: Double, setCore: @escaping (Limits) -> Void, downloaders: @escaping () -> [String],
        sendShare: @escaping (String, Int64?) -> Bool
    ) throws {
        self.context = context
        self.overrides = overrides
        self.timeZone = timeZone
        self.setCore = setCore
        self.downloaders = downloaders
        self.sendShare = sendShare
        self.heartbeat = Every(seconds: heartbeat)
        state.schedule = schedule
        try load()
    }

    /// The bandwidth cap in force, bytes a second (nil: none).
    var bandwidth: Int64? { state.bandwidth }
    /// Free bytes always kept on the titles' filesystem.
    var diskCushion: Int64 { state.diskCushion }

    func tick(now: Double) {
        if heartbeat.isDue(now: now) { shareBandwidth() }
        if schedule.isDue(now: now) { followSchedule() }
    }

    func answer(_ request: ComponentRequest) throws -> ReplyBody? {
        guard case .limits(let change) = request.operation else { return nil }
        if let change { try apply(change) }
        let l = inForce()
        return .limits(
            LimitsInfo(
                titles: l.limits.titlesAtOnce, perTitle: l.limits.perTitle, perHost: l.limits.perHost,
                licenses: l.limits.licenses, bandwidth: state.bandwidth ?? 0, diskCushion: state.diskCushion))
    }

    /// Start-up: the stored limits, under the flags given at start (each override is logged).
    private func load() throws {
        if let text = try context.store.setting(Self.setting) {
            guard let stored = try? JSONDecoder().decode(LimitSettings.self, from: Data(text.utf8)) else {
                context.logger.warning(
                    "stored limits are unreadable; using the defaults", metadata: ["stored": "\(text.prefix(200))"])
                return try applyInForce()
            }
            state.stored = stored
        }
        for o in state.stored.overridden(by: overrides) {
            context.logger.notice(
                "--\(o.option) \(o.given) given at start overrides the stored \(o.stored) for this run",
                metadata: ["stored": "\(o.stored)", "given": "\(o.given)"])
        }
        try applyInForce()
    }

    /// Defaults, then stored values, then start flags.
    private func inForce() -> LimitSettings {
        LimitSettings.defaults.overlaid(with: state.stored).overlaid(with: overrides)
    }

    private func applyInForce() throws {
        let l = inForce()
        if let refusal = l.refusal() { throw RuntimeError("limits: \(refusal)") }
        setCore(l.limits)
        // A cap given at start or with `stowctl limits` wins over the schedule.
        state.explicitBandwidth = overrides.bandwidth ?? state.stored.bandwidth
        _ = state.followSchedule(at: Date(timeIntervalSince1970: context.clock.now()), in: timeZone)
        state.diskCushion = l.diskCushion ?? LimitSettings.defaults.diskCushion!
        shareBandwidth()
    }

    /// `--bandwidth-schedule`, against the wall clock read now: the cap follows the schedule's rate (while no cap
    /// is set explicitly) and the download workers get their new shares at once.
    private func followSchedule() {
        guard state.schedule != nil,
            state.followSchedule(at: Date(timeIntervalSince1970: context.clock.now()), in: timeZone)
        else { return }
        context.logger.info(
            "the bandwidth schedule changes the cap",
            metadata: ["bytesPerSecond": "\(state.bandwidth.map(String.init) ?? "unlimited")"])
        shareBandwidth()
    }

    /// Sends each download worker its share of the bandwidth cap when the cap or the workers change.
    private func shareBandwidth() {
        let workers = downloaders()
        for (id, share) in state.sharesToSend(workers) where sendShare(id, share > 0 ? share : nil) {
            state.shareSent(share, to: id)
        }
        state.keepShares(of: workers)
    }

    /// `stowctl limits …`: changes apply live and are stored, so they hold after any restart (`kill -9`
    /// included); a change also replaces what a start flag set for this run. `--reset` forgets the stored
    /// values (the defaults apply, under this run's start flags).
    private func apply(_ change: LimitsInfo) throws {
        let asked = LimitSettings(
            titles: change.titles, perTitle: change.perTitle, perHost: change.perHost,
            licenses: change.licenses, bandwidth: change.bandwidth, diskCushion: change.diskCushion)
        if let refusal = asked.refusal() { throw TitleError(code: .refused, message: refusal) }
        if change.reset == true {
            state.stored = LimitSettings()
            overrides = LimitSettings()
            try context.store.removeSetting(Self.setting)
        }
        state.stored = state.stored.overlaid(with: asked)
        // What the operator just set wins over the start flags from now on.
        if asked.titles != nil { overrides.titles = nil }
        if asked.perTitle != nil { overrides.perTitle = nil }
        if asked.perHost != nil { overrides.perHost = nil }
        if asked.licenses != nil { overrides.licenses = nil }
        if asked.bandwidth != nil { overrides.bandwidth = nil }
        if asked.diskCushion != nil { overrides.diskCushion = nil }
        if state.stored != LimitSettings() {
            try context.store.setSetting(
                Self.setting, String(decoding: try JSONEncoder().encode(state.stored), as: UTF8.self))
        }
        try applyInForce()
        let l = inForce()
        context.logger.info(
            change.reset == true ? "limits reset" : "limits changed",
            metadata: [
                "titles": "\(l.titles ?? 0)", "perTitle": "\(l.perTitle ?? 0)", "perHost": "\(l.perHost ?? 0)",
                "licenses": "\(l.licenses ?? 0)", "bandwidth": "\(l.bandwidth ?? 0)",
                "diskCushion": "\(l.diskCushion ?? 0)",
            ])
    }
}
