import StowageProtocol
import StowageSchedulerCore
import StowageStore

extension TitleRecord {
    /// The title's place in its life (``TitleLifecycle``), from the stored fields.
    var lifecycle: TitleLifecycle {
        TitleLifecycle(
            state: state, suspendedReason: suspendedReason, suspendedAt: suspendedAt, waitingHost: waitingHost,
            endedAt: endedAt, error: storedError, renewalWaits: licenseError != nil)
    }

    /// The stored error as a value (nil when none; `internal` for a code this version does not know, so a move
    /// that clears the error clears it too).
    var storedError: TitleError? {
        guard let raw = errorCode else { return nil }
        return TitleError(code: ErrorCode(rawValue: raw) ?? .internal, message: errorMessage ?? "")
    }

    /// Writes the fields a move of the lifecycle changed.
    mutating func take(_ life: TitleLifecycle) {
        let before = lifecycle
        state = life.state
        suspendedReason = life.suspendedReason
        suspendedAt = life.suspendedAt
        waitingHost = life.waitingHost
        endedAt = life.endedAt
        if life.error != before.error {
            errorCode = life.error?.code.rawValue
            errorMessage = life.error?.message
        }
    }
}
