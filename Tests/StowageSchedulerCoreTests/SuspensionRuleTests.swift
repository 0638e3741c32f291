import StowageProtocol
import Testing

@testable import StowageSchedulerCore

/// The table of waits, and what the lifecycle lets an operator do in each state.
@Suite struct SuspensionRuleTests {
    @Test func everyReasonHasARowThatNamesItAndSaysWhatReleasesIt() {
        #expect(SuspensionRule.all.map(\.reason) == SuspendedReason.allCases)
        let releases = Dictionary(uniqueKeysWithValues: SuspensionRule.all.map { ($0.reason, $0.releasedBy) })
        #expect(releases[.paused] == .operatorOnly)
        #expect(releases[.diskFull] == .spaceBack)
        #expect(releases[.network] == .hostAnswers)
        #expect(releases[.window] == .windowOpens)
        #expect(releases[.quota] == .roomUnderQuota)
        // The concern that owns a wait it releases by itself decides whether an operator may cut it short.
        #expect(SuspensionRule.of(.window).operatorResume == .ifAdmitted)
        #expect(SuspensionRule.of(.quota).operatorResume == .ifAdmitted)
        #expect(SuspensionRule.of(.paused).operatorResume == .allowed)
        #expect(Set(SuspensionRule.all.map(\.shown)).count == SuspendedReason.allCases.count)
    }

    @Test func resumeGoesWhereWhatTheTitleHoldsSays() {
        #expect(ResumeFacts(planned: false, licensed: true, recording: true).next == .requested)
        #expect(ResumeFacts(planned: true, licensed: false, recording: false).next == .licensing)
        #expect(ResumeFacts(planned: true, licensed: false, recording: true).next == .licensing)
        #expect(ResumeFacts(planned: true, licensed: true, recording: true).next == .recording)
        #expect(ResumeFacts(planned: true, licensed: true, recording: false).next == .requested)
    }

    @Test func theOperatorsMovesAreAnsweredByTheState() {
        func refusal(_ state: TitleState, _ action: TitleLifecycle.OperatorAction, recording: Bool = false) -> String? {
            TitleLifecycle(state: state).refusal(action, of: "t1", recording: recording, isRecordingTitle: recording)
        }
        for state in TitleState.allCases {
            #expect((refusal(state, .pause) == nil) == !state.isFinal, "pause \(state)")
            #expect((refusal(state, .resume) == nil) == [.suspended, .failed].contains(state), "resume \(state)")
            #expect((refusal(state, .stop, recording: true) == nil) == !state.isFinal, "stop \(state)")
            #expect(refusal(state, .stop) != nil, "stop of a title that is not recording, \(state)")
        }
        #expect(refusal(.recording, .pause, recording: true)?.contains("`stowctl stop t1`") == true)
        #expect(refusal(.completed, .resume) == "title t1 is completed: only suspended or failed titles can be resumed")
        #expect(
            TitleLifecycle(state: .downloading).refusal(.stop, of: "t1", recording: false, isRecordingTitle: true)
                == "title t1 is downloading and its recording has ended: only a recording in progress can be stopped")
    }
}
