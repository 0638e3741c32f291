import Foundation
import StowageLicensing
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// The clock guard: time-limited licenses must not outlive a wall clock set back, so a jump back beyond the
/// tolerance starts a new epoch, and a license recorded in an older epoch counts as expired until renewed.
extension SchedulerService {
    /// Seconds the wall clock may go back before time-limited licenses count as expired.
    static let clockTolerance: Double = 300
    /// The store keys of the clock guard's epoch and latest time seen.
    static let clockEpochSetting = "clock.epoch"
    static let clockLastSeenSetting = "clock.lastSeen"

    /// The granted terms in force for a title, if licensed.
    func terms(of title: TitleRecord) -> LicenseTerms? { title.licenseTerms }

    func usage(of title: TitleRecord) -> LicenseUsage { title.licenseUsage }

    /// Whether this title's license predates a clock rollback (and so counts as expired until renewed).
    func clockRolledBack(for title: TitleRecord) -> Bool { title.licenseEpoch < memory.clockEpoch.epoch }

    /// The clock guard: persists the latest time seen; a jump back beyond the tolerance starts a new epoch.
    func checkClock() {
        let t = clock.now()
        switch memory.clockEpoch.observe(now: t) {
        case .rolledBack(let last):
            try? store.setSetting(Self.clockEpochSetting, "\(memory.clockEpoch.epoch)")
            logger.warning(
                "the wall clock went back: time-limited licenses count as expired until renewed",
                metadata: ["lastSeen": "\(iso8601(last) ?? "?")", "now": "\(iso8601(t) ?? "?")"])
            try? store.setSetting(Self.clockLastSeenSetting, "\(t)")
        case .advanced:
            try? store.setSetting(Self.clockLastSeenSetting, "\(t)")
        case .none:
            break
        }
    }
}
