import Foundation
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore

extension SchedulerService {
    /// The store key of the limits set with `stowctl limits`.
    static let limitsSetting = "limits"

    /// Start-up: the stored limits, under the flags given at start (each override is logged).
    func loadLimits() throws {
        if let text = try store.setting(Self.limitsSetting) {
            guard let stored = decode(LimitSettings.self, text) else {
                logger.warning(
                    "stored limits are unreadable; using the defaults", metadata: ["stored": "\(text.prefix(200))"])
                return try applyInForce()
            }
            memory.limits.stored = stored
        }
        for o in memory.limits.stored.overridden(by: options.limitOverrides) {
            logger.notice(
                "--\(o.option) \(o.given) given at start overrides the stored \(o.stored) for this run",
                metadata: ["stored": "\(o.stored)", "given": "\(o.given)"])
        }
        try applyInForce()
    }

    /// Defaults, then stored values, then start flags.
    private func inForce() -> LimitSettings {
        LimitSettings.defaults.overlaid(with: memory.limits.stored).overlaid(with: options.limitOverrides)
    }

    private func applyInForce() throws {
        let l = inForce()
        if let refusal = l.refusal() { throw RuntimeError("limits: \(refusal)") }
        core.limits = l.limits
        // A cap given at start or with `stowctl limits` wins over the schedule.
        memory.limits.explicitBandwidth = options.limitOverrides.bandwidth ?? memory.limits.stored.bandwidth
        _ = memory.limits.followSchedule(at: Date(timeIntervalSince1970: clock.now()), in: options.timeZone)
        memory.limits.diskCushion = l.diskCushion ?? LimitSettings.defaults.diskCushion!
        shareBandwidth()
    }

    /// `--bandwidth-schedule`, every second against the wall clock read now: the cap follows the schedule's rate (while
    /// no cap is set explicitly) and the download workers get their new shares at once.
    func followBandwidthSchedule() {
        guard memory.limits.schedule != nil,
            memory.limits.followSchedule(at: Date(timeIntervalSince1970: clock.now()), in: options.timeZone)
        else { return }
        logger.info(
            "the bandwidth schedule changes the cap",
            metadata: ["bytesPerSecond": "\(memory.limits.bandwidth.map(String.init) ?? "unlimited")"])
        shareBandwidth()
    }

    /// `stowctl limits …`: changes apply live and are stored, so they hold after any restart (`kill -9`
    /// included); a change also replaces what a start flag set for this run. `--reset` forgets the stored
    /// values (the defaults apply, under this run's start flags).
    func applyLimits(_ change: LimitsInfo) throws {
        let asked = LimitSettings(
            titles: change.titles, perTitle: change.perTitle, perHost: change.perHost,
            licenses: change.licenses, bandwidth: change.bandwidth, diskCushion: change.diskCushion)
        if let refusal = asked.refusal() { throw TitleError(code: .refused, message: refusal) }
        if change.reset == true {
            memory.limits.stored = LimitSettings()
            options.limitOverrides = LimitSettings()
            try store.removeSetting(Self.limitsSetting)
        }
        memory.limits.stored = memory.limits.stored.overlaid(with: asked)
        // What the operator just set wins over the start flags from now on.
        var overrides = options.limitOverrides
        if asked.titles != nil { overrides.titles = nil }
        if asked.perTitle != nil { overrides.perTitle = nil }
        if asked.perHost != nil { overrides.perHost = nil }
        if asked.licenses != nil { overrides.licenses = nil }
        if asked.bandwidth != nil { overrides.bandwidth = nil }
        if asked.diskCushion != nil { overrides.diskCushion = nil }
        options.limitOverrides = overrides
        if memory.limits.stored != LimitSettings() {
            try store.setSetting(
                Self.limitsSetting, String(decoding: try JSONEncoder().encode(memory.limits.stored), as: UTF8.self))
        }
        try applyInForce()
        let l = inForce()
        logger.info(
            change.reset == true ? "limits reset" : "limits changed",
            metadata: [
                "titles": "\(l.titles ?? 0)", "perTitle": "\(l.perTitle ?? 0)", "perHost": "\(l.perHost ?? 0)",
                "licenses": "\(l.licenses ?? 0)", "bandwidth": "\(l.bandwidth ?? 0)",
                "diskCushion": "\(l.diskCushion ?? 0)",
            ])
    }

    /// The limits in force, as `stowctl limits` shows them.
    func limitsInForce() -> LimitsInfo {
        let l = core.limits
        return LimitsInfo(
            titles: l.titlesAtOnce, perTitle: l.perTitle, perHost: l.perHost, licenses: l.licenses,
            bandwidth: memory.limits.bandwidth ?? 0, diskCushion: memory.limits.diskCushion)
    }
}
