import Foundation
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// An operator's pause, resume and stop: the lifecycle says whether the title's state takes the move
/// (``TitleLifecycle/refusal(_:of:recording:isRecordingTitle:)``), the table of waits whether a resume needs the
/// owning concern's consent (``SuspensionRule``), and that concern gives it (``SuspensionOwner``).
extension SchedulerService {
    func operate(_ action: TitleLifecycle.OperatorAction, on token: String) throws -> TitleStatus {
        guard let title = try store.title(token) else { throw TitleError.noTitle(token) }
        if let why = title.lifecycle.refusal(
            action, of: token, recording: title.isRecording, isRecordingTitle: title.record != nil)
        {
            throw TitleError(code: .refused, message: why)
        }
        switch action {
        case .pause:
            // A title waiting for the network or for space is paused too: it then waits for `resume` only.
            if title.state != .suspended || title.suspendedReason != .paused { try pause(token) }
        case .resume:
            if title.state == .suspended, let reason = title.suspendedReason,
                SuspensionRule.of(reason).operatorResume == .ifAdmitted,
                let why = try components.resumeRefusal(title, waitingFor: reason)
            {
                throw TitleError(code: .refused, message: "title \(token) \(SuspensionRule.of(reason).shown): \(why)")
            }
            try resume(token)
        case .stop:
            try recording?.end(token, reason: "stopped by the operator")
        case .renew:
            break  // asked of the licensing component (`LicensingComponent.renew`), which asks the lifecycle too
        }
        return try currentStatus(token)
    }
}
