import StowageProtocol

/// What a title holds when it resumes, from which ``TitleLifecycle`` computes where it goes: the caller states
/// facts, never the next state.
public struct ResumeFacts: Sendable, Equatable {
    /// Its source was resolved into a plan.
    public var planned: Bool
    /// It holds every key and its terms (or, for a recording, its terms: keys met later are fetched beside it).
    public var licensed: Bool
    /// It is a recording that has not ended.
    public var recording: Bool

    public init(planned: Bool, licensed: Bool, recording: Bool) {
        self.planned = planned
        self.licensed = licensed
        self.recording = recording
    }

    /// Unplanned: resolve again; unlicensed: license; a recording: record on from what it has; else wait for a
    /// download slot.
    public var next: TitleState {
        if !planned { return .requested }
        if !licensed { return .licensing }
        return recording ? .recording : .requested
    }
}
