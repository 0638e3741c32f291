import StowageProtocol

/// What an operator may ask of a title in its state, answered by the lifecycle so request handlers do not each
/// re-check legality. A refusal is a sentence naming the title, which the service sends as `refused`.
extension TitleLifecycle {
    /// The operator's moves.
    public enum OperatorAction: Sendable, Equatable {
        case pause, resume, stop, renew
    }

    /// The states whose license may be renewed: every one a license is held in (a title not yet licensed, and a
    /// canceled or failed one, has none to renew).
    public static let renewable: Set<TitleState> = [
        .completed, .licensed, .recording, .downloading, .verifying, .suspended,
    ]

    /// Why `action` is refused now (nil: accepted). `recording`: a recording that has not ended; `isRecordingTitle`:
    /// the title was submitted as a recording.
    public func refusal(
        _ action: OperatorAction, of token: String, recording: Bool, isRecordingTitle: Bool
    ) -> String? {
        let title = "title \(token)"
        switch action {
        case .pause:
            if recording {
                return "\(title) is a recording: it cannot be paused, because the live window moves on while it "
                    + "waits and what leaves it is lost. `stowctl stop \(token)` ends the recording and keeps what it "
                    + "recorded; `stowctl cancel` drops it"
            }
            if state.isFinal { return "\(title) is \(state.rawValue): only unfinished titles can be paused" }
        case .resume:
            if ![.suspended, .failed].contains(state) {
                return "\(title) is \(state.rawValue): only suspended or failed titles can be resumed"
            }
        case .renew:
            if !Self.renewable.contains(state) {
                return "\(title) is \(state.rawValue): only a licensed title can be renewed"
            }
        case .stop:
            if !recording || state.isFinal {
                return "\(title) is \(state.rawValue)"
                    + (isRecordingTitle ? " and its recording has ended" : ", not a recording")
                    + ": only a recording in progress can be stopped"
            }
        }
        return nil
    }
}
