import StowageProtocol
import StowageSchedulerCore

/// The actions the console offers for a title: those the lifecycle accepts in its state
/// (``TitleLifecycle/refusal(_:of:recording:isRecordingTitle:)``, the table the scheduler itself refuses with), so
/// the page never offers what the scheduler would refuse and no second table of states is kept here.
enum ConsoleActions {
    static func offered(_ s: TitleStatus) -> [TitleAction] {
        let lifecycle = TitleLifecycle(state: s.state, suspendedReason: s.suspendedReason)
        // A recording in progress is in state `recording`; a title submitted as one reports its recorded seconds.
        let accepts = { (action: TitleLifecycle.OperatorAction) in
            lifecycle.refusal(
                action, of: s.token, recording: s.state == .recording, isRecordingTitle: s.recordedSeconds != nil)
                == nil
        }
        var actions: [TitleAction] = []
        // A paused title is paused already: pausing it again changes nothing.
        if accepts(.pause), s.suspendedReason != .paused { actions.append(.pause) }
        if accepts(.resume) { actions.append(.resume) }
        if accepts(.stop) { actions.append(.stop) }
        // Only a license with terms has anything to renew.
        if let license = s.license, license.kind != .none, accepts(.renew) { actions.append(.renew) }
        actions.append(.delete)
        return actions
    }
}
