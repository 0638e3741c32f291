import StowageProtocol
import Testing

@testable import StowageSchedulerCore

/// Every row of the transition table, and what each state refuses.
@Suite struct TitleLifecycleTests {
    typealias Event = TitleLifecycle.Event
    static let boom = TitleError(code: .network, message: "no route")
    static let unplanned = ResumeFacts(planned: false, licensed: false, recording: false)
    static let unlicensed = ResumeFacts(planned: true, licensed: false, recording: true)
    static let licensed = ResumeFacts(planned: true, licensed: true, recording: false)
    static let recording = ResumeFacts(planned: true, licensed: true, recording: true)

    /// One move: from `state`, `event` leads to `next`.
    static let moves: [(TitleState, Event, TitleState)] = [
        (.requested, .planned, .licensing),
        (.licensing, .preloaded, .licensed),
        (.licensing, .queued, .requested),
        (.licensed, .queued, .requested),
        (.requested, .tookSlot, .downloading),
        (.licensing, .recordingStarted, .recording),
        (.licensed, .recordingStarted, .recording),
        (.requested, .recordingStarted, .recording),
        (.recording, .recordingEnded, .downloading),
        (.requested, .onlyChecksLeft, .verifying),
        (.downloading, .onlyChecksLeft, .verifying),
        (.requested, .allVerified, .completed),
        (.licensing, .allVerified, .completed),
        (.downloading, .allVerified, .completed),
        (.verifying, .allVerified, .completed),
        (.completed, .reverify, .verifying),
        (.suspended, .resumed(Self.unplanned), .requested),
        (.suspended, .resumed(Self.licensed), .requested),
        (.suspended, .resumed(Self.unlicensed), .licensing),
        (.suspended, .resumed(Self.recording), .recording),
        (.failed, .resumed(Self.unplanned), .requested),
        (.failed, .resumed(Self.licensed), .requested),
    ]

    @Test func eachMoveOfTheTable() throws {
        for (from, event, to) in Self.moves {
            var life = TitleLifecycle(state: from)
            let effects = try life.handle(event, now: 100)
            #expect(life.state == to, "\(from) + \(event)")
            #expect(effects.first == .moved(from: from, to: to, error: nil), "\(from) + \(event)")
            #expect(effects.contains(.forget) == to.isFinal)
        }
    }

    @Test func failingFromAnyStateButCanceledStopsWorkAndForgets() throws {
        for from in TitleState.allCases where from != .canceled && from != .failed {
            var life = TitleLifecycle(state: from)
            let effects = try life.handle(.failed(Self.boom), now: 50)
            #expect(life.state == .failed)
            #expect(life.error == Self.boom)
            #expect(life.endedAt == 50)
            #expect(effects == [.stopWork, .moved(from: from, to: .failed, error: Self.boom), .forget])
        }
        var canceled = TitleLifecycle(state: .canceled)
        #expect(throws: TitleLifecycle.IllegalTransition.self) { try canceled.handle(.failed(Self.boom), now: 1) }
    }

    @Test func cancelingRemovesFilesFromAnyState() throws {
        for from in TitleState.allCases where from != .canceled {
            var life = TitleLifecycle(state: from)
            let effects = try life.handle(.canceled, now: 7)
            #expect(life.state == .canceled)
            #expect(life.error?.code == .canceled)
            #expect(effects.first == .stopWork)
            #expect(effects.contains(.removeFiles))
            #expect(effects.contains(.forget))
        }
    }

    @Test func repeatedEndsAndArrivalsChangeNothing() throws {
        let already: [(TitleState, Event)] = [
            (.failed, .failed(Self.boom)), (.canceled, .canceled), (.verifying, .onlyChecksLeft),
            (.requested, .queued), (.recording, .recordingStarted),
        ]
        for (state, event) in already {
            var life = TitleLifecycle(state: state, endedAt: 3)
            #expect(try life.handle(event, now: 9).isEmpty)
            #expect(life == TitleLifecycle(state: state, endedAt: 3))
        }
    }

    @Test func suspendingKeepsWhyItWaitsAndResumingClearsIt() throws {
        var life = TitleLifecycle(state: .downloading)
        let effects = try life.handle(.suspended(.network, waitingHost: "o:80", error: Self.boom), now: 10)
        #expect(effects == [.stopWork, .moved(from: .downloading, to: .suspended, error: Self.boom)])
        #expect(life.suspendedReason == .network)
        #expect(life.suspendedAt == 10)
        #expect(life.waitingHost == "o:80")
        // Paused while it waited: the reason changes, the time it has waited does not.
        #expect(
            try life.handle(.suspended(.paused, waitingHost: nil, error: nil), now: 20) == [
                .stopWork, .waitsFor(.paused),
            ])
        #expect(life.suspendedReason == .paused)
        #expect(life.suspendedAt == 10)
        #expect(life.error == nil)
        _ = try life.handle(.resumed(Self.licensed), now: 30)
        #expect(life.state == .requested)
        #expect(life.suspendedReason == nil)
        #expect(life.suspendedAt == nil)
        #expect(life.waitingHost == nil)
    }

    @Test func aRenewalWaitingForItsHostKeepsTheHostWhenTheTitleMoves() throws {
        var life = TitleLifecycle(
            state: .suspended, suspendedReason: .paused, waitingHost: "lic:443", renewalWaits: true)
        _ = try life.handle(.resumed(Self.recording), now: 1)
        #expect(life.waitingHost == nil)  // resuming starts over: the renewal runs again
        var downloading = TitleLifecycle(state: .suspended, suspendedReason: .paused, waitingHost: "lic:443")
        downloading.renewalWaits = true
        _ = try downloading.handle(.failed(Self.boom), now: 1)
        #expect(downloading.waitingHost == nil)  // an end forgets it
    }

    @Test func badFilesCompleteAVerifyRunOrMarkAScrubbedTitle() throws {
        let bad = TitleError(code: .integrity, message: "1 file(s) failed verification")
        var run = TitleLifecycle(state: .verifying)
        #expect(
            try run.handle(.badFilesFound(bad), now: 4) == [
                .moved(from: .verifying, to: .completed, error: bad), .forget,
            ])
        #expect(run.error == bad)
        var scrubbed = TitleLifecycle(state: .completed, endedAt: 2)
        #expect(try scrubbed.handle(.badFilesFound(bad), now: 4).isEmpty)
        #expect(scrubbed.state == .completed)
        #expect(scrubbed.error == bad)
        #expect(scrubbed.endedAt == 2)
    }

    @Test func resumingClearsTheErrorAndTheEnd() throws {
        var life = TitleLifecycle(state: .failed, endedAt: 5, error: Self.boom)
        _ = try life.handle(.resumed(Self.unlicensed), now: 6)
        #expect(life.error == nil)
        #expect(life.endedAt == nil)
    }

    @Test func everyOtherPairIsRefusedAndLeavesTheTitleAsItWas() {
        let events: [Event] = [
            .planned, .preloaded, .queued, .tookSlot, .recordingStarted, .recordingEnded, .onlyChecksLeft,
            .allVerified, .reverify, .resumed(Self.licensed),
            .suspended(.paused, waitingHost: nil, error: nil),
        ]
        var refused = 0
        for state in TitleState.allCases {
            for event in events {
                var life = TitleLifecycle(state: state)
                let accepted =
                    Self.moves.contains { $0.0 == state && $0.1 == event }
                    || [
                        (TitleState.verifying, Event.onlyChecksLeft), (.requested, .queued),
                        (.recording, .recordingStarted),
                    ]
                    .contains { $0.0 == state && $0.1 == event }
                    || (event == .suspended(.paused, waitingHost: nil, error: nil) && !state.isFinal)
                if accepted { continue }
                #expect(throws: TitleLifecycle.IllegalTransition.self, "\(state) + \(event)") {
                    try life.handle(event, now: 1)
                }
                #expect(life == TitleLifecycle(state: state))
                refused += 1
            }
        }
        #expect(refused > 80)
    }
}
