import Foundation
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// Fill windows (`--fill-window`, `submit --window`, `--now`): the interpreter of ``FillWindows`` (the decision is
/// there). Every second, against the wall clock read then (a clock step moves the windows), a title that may not
/// fetch now waits as suspended (`window`), its work in flight called back (bytes on disk are kept); one waiting
/// for its window carries on from what is on disk once the window opens. A paused title stays paused.
///
/// The title's side asks ``holds(_:)`` before a submitted or resumed title fetches (it then waits for its window
/// at once: not even its playlist is fetched), and a status shows when a waiting title's window opens next.
final class FillWindowComponent: SchedulerComponent, SuspensionOwner {
    let name = "fill-windows"
    let owns = SuspendedReason.window
    private let context: ComponentContext
    /// The box's windows and time zone.
    private let windows: FillWindows
    /// Titles are looked at every second.
    private var due = Every(seconds: 1)

    init(context: ComponentContext, box: FillSchedule?, timeZone: TimeZone) {
        self.context = context
        windows = FillWindows(box: box, timeZone: timeZone)
    }

    func tick(now: Double) {
        if due.isDue(now: now) { follow() }
    }

    func describe(_ title: TitleRecord, into status: inout TitleStatus) {
        guard title.state == .suspended, title.suspendedReason == .window else { return }
        let next = windows.nextOpening(
            window: title.fillWindow, after: Date(timeIntervalSince1970: context.clock.now()))
        status.nextWindowAt = iso8601(next?.timeIntervalSince1970)
    }

    /// Whether a title may not fetch now: its windows (or the box's) are closed, and it is neither `--now` nor a
    /// recording.
    func holds(_ title: TitleRecord) -> Bool {
        windows.holds(
            window: title.fillWindow, now: title.fetchNow, recording: title.record != nil,
            at: Date(timeIntervalSince1970: context.clock.now()))
    }

    /// An operator's resume of a title waiting for its window: refused while the window is closed, saying when it
    /// opens and how to fetch the title outside it.
    func resumeRefusal(_ title: TitleRecord) throws -> String? {
        guard holds(title) else { return nil }
        let next = windows.nextOpening(
            window: title.fillWindow, after: Date(timeIntervalSince1970: context.clock.now()))
        return "it starts when its window opens (\(next.map { iso8601($0.timeIntervalSince1970) ?? "" } ?? "never"))"
            + "; `stowctl submit \(title.url) --now` fetches it outside its window"
    }

    /// Holds the titles whose windows closed and releases those whose windows opened.
    private func follow() {
        let now = Date(timeIntervalSince1970: context.clock.now())
        do {
            for title in try context.store.windowedTitles(boxWindow: windows.box != nil) {
                switch windows.verdict(
                    state: title.state, reason: title.suspendedReason, window: title.fillWindow, at: now)
                {
                case .hold(let opening):
                    context.logger.info(
                        "outside its fill window: the title waits",
                        metadata: ["token": "\(title.token)", "nextWindowAt": "\(opening.map { "\($0)" } ?? "never")"])
                    try context.desk.suspend(title.token, reason: .window, error: nil)
                case .release:
                    context.logger.info("its fill window is open: resuming", metadata: ["token": "\(title.token)"])
                    try context.desk.resume(title.token)
                case .keep:
                    continue
                }
            }
        } catch {
            context.logger.error("could not apply the fill windows", metadata: ["error": "\(error)"])
        }
    }
}
