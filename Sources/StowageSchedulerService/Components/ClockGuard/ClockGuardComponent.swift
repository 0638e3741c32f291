import Foundation
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// The clock guard: time-limited licenses must not outlive a wall clock set back, so a jump back beyond the
/// tolerance starts a new epoch (``ClockEpoch``), and a license recorded in an older epoch counts as expired until
/// renewed. It checks at start and every 10 s, and persists the epoch and the latest time seen.
final class ClockGuardComponent: SchedulerComponent {
    let name = "clock-guard"
    /// Seconds the wall clock may go back before time-limited licenses count as expired.
    static let tolerance: Double = 300
    /// The store keys of the epoch and the latest time seen.
    static let epochSetting = "clock.epoch"
    static let lastSeenSetting = "clock.lastSeen"
    private let context: ComponentContext
    private var state: ClockEpoch
    private var due = Every(seconds: 10)

    /// Reads the epoch and the latest time seen from the store (unreadable values: a first start).
    init(context: ComponentContext) {
        self.context = context
        let stored = { (key: String) in (try? context.store.setting(key)).flatMap { $0 } }
        state = ClockEpoch(
            epoch: stored(Self.epochSetting).flatMap(Int.init) ?? 0,
            lastSeen: stored(Self.lastSeenSetting).flatMap(Double.init), tolerance: Self.tolerance)
    }

    /// The epoch now: a license granted now is recorded in it.
    var epoch: Int { state.epoch }

    /// Whether this title's license predates a clock rollback (and so counts as expired until renewed).
    func rolledBack(for title: TitleRecord) -> Bool { title.licenseEpoch < state.epoch }

    func tick(now: Double) {
        if due.isDue(now: now) { check() }
    }

    /// Persists the latest time seen; a jump back beyond the tolerance starts a new epoch.
    func check() {
        let t = context.clock.now()
        switch state.observe(now: t) {
        case .rolledBack(let last):
            try? context.store.setSetting(Self.epochSetting, "\(state.epoch)")
            context.logger.warning(
                "the wall clock went back: time-limited licenses count as expired until renewed",
                metadata: ["lastSeen": "\(iso8601(last) ?? "?")", "now": "\(iso8601(t) ?? "?")"])
            try? context.store.setSetting(Self.lastSeenSetting, "\(t)")
        case .advanced:
            try? context.store.setSetting(Self.lastSeenSetting, "\(t)")
        case .none:
            break
        }
    }
}
