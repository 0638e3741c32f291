import StowageProtocol
import Testing

@testable import StowageSchedulerCore

/// What the lifecycle lets an operator ask in each state: the one table the scheduler refuses with and the
/// gateway's console offers its buttons from.
@Suite struct OperatorRefusalTests {
    static func refusal(_ action: TitleLifecycle.OperatorAction, _ state: TitleState, recording: Bool = false)
        -> String?
    {
        TitleLifecycle(state: state).refusal(action, of: "t", recording: recording, isRecordingTitle: recording)
    }

    @Test func renewIsForStatesThatHoldALicense() {
        let held: [TitleState] = [.completed, .licensed, .recording, .downloading, .verifying, .suspended]
        for state in held { #expect(Self.refusal(.renew, state) == nil, "\(state)") }
        for state in [TitleState.requested, .licensing, .canceled, .failed] {
            #expect(Self.refusal(.renew, state)?.contains("only a licensed title can be renewed") == true, "\(state)")
        }
    }

    @Test func pauseIsForUnfinishedTitlesThatAreNotRecording() {
        #expect(Self.refusal(.pause, .downloading) == nil && Self.refusal(.pause, .requested) == nil)
        #expect(Self.refusal(.pause, .completed)?.contains("only unfinished titles") == true)
        #expect(Self.refusal(.pause, .recording, recording: true)?.contains("is a recording") == true)
        #expect(Self.refusal(.resume, .completed) != nil && Self.refusal(.resume, .suspended) == nil)
    }
}
