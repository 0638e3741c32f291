import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// Plays as far as the scheduler can tell (``PlayActivity``): a play authorised, a key handed out or play time
/// reported is a sign a device is watching. What is being watched is never evicted for the quota nor deleted by the
/// catalogue; just after a start, before a play under way has reported again, every title counts as watched.
///
/// It sees the operations that are signs of a play without answering them (`play`, `playOn` and `key` are the
/// service's), answers `played` (the gateway's report of play time: the title's `playedSeconds` and
/// `lastPlayedAt`), and shows `lastPlayedAt` in a status.
final class PlaysComponent: SchedulerComponent, EvictionAdvisor {
    let name = "plays"
    private let context: ComponentContext
    private var activity = PlayActivity()

    /// Plays are watched from the start (the start-up blindness runs from here).
    init(context: ComponentContext) {
        self.context = context
        activity.begin(now: context.clock.monotonic())
    }

    /// A sign of a play, noted even when the answer refuses (a device asked: it may be playing what it holds).
    func see(_ request: ComponentRequest) {
        switch request.operation {
        case .play(let token, _), .playOn(let token, _, _), .played(let token, _, _), .key(let token, _):
            activity.saw(token, now: context.clock.monotonic())
        default:
            break
        }
    }

    func answer(_ request: ComponentRequest) throws -> ReplyBody? {
        guard case .played(let token, let seconds, _) = request.operation else { return nil }
        guard var title = try context.store.title(token) else { throw TitleError.noTitle(token) }
        guard seconds.isFinite, seconds >= 0, seconds < 86_400 else {
            throw TitleError(code: .refused, message: "played seconds out of range")
        }
        title.playedSeconds += seconds
        title.lastPlayedAt = context.clock.now()
        try context.store.update(title)
        return .ok
    }

    func describe(_ title: TitleRecord, into status: inout TitleStatus) {
        status.lastPlayedAt = iso8601(title.lastPlayedAt)
    }

    /// The titles being played at `now` (monotonic); nil while plays under way cannot all have shown themselves
    /// yet (the start-up blindness), when the caller must assume any title may be.
    func playing(now: Double) -> Set<String>? {
        activity.seesEveryPlay(now: now) ? activity.playing(now: now) : nil
    }

    /// Seconds left of the start-up blindness (`stats`' `evictionGraceSeconds`).
    var blindFor: Double { activity.blindFor(now: context.clock.monotonic()) }

    /// A title being played is kept; just after a start, every title.
    func advise(_ holdings: inout [EvictionPolicy.Holding], now: Double) {
        let playing = playing(now: now)
        for i in holdings.indices {
            holdings[i].playing = holdings[i].playing || playing?.contains(holdings[i].token) ?? true
        }
    }
}
