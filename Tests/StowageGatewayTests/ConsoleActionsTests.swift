import StowageProtocol
import Testing

@testable import StowageGateway

/// The actions the console offers per state: the lifecycle's answer, so never one the scheduler would refuse.
@Suite("Console actions per state")
struct ConsoleActionsTests {
    static func title(
        _ state: TitleState, reason: SuspendedReason? = nil, license: LicenseKind? = .rental,
        recordedSeconds: Double? = nil
    ) -> TitleStatus {
        var s = TitleStatus(
            token: "tok", url: "https://cdn.example/m.m3u8", name: "M", state: state, progress: 0.5,
            bytesDownloaded: 1, bytesExpected: 2, segmentsDone: 1, segmentsTotal: 2, requestedAt: nil,
            startedAt: nil, endedAt: nil,
            license: license.map {
                LicenseStatus(
                    kind: $0, requestedAt: nil, expiresAt: nil, playDurationSeconds: nil, playsRemaining: nil,
                    playTimeRemainingSeconds: nil, expired: false)
            }, localPlaylist: nil, playableOffline: false, error: nil)
        s.suspendedReason = reason
        s.recordedSeconds = recordedSeconds
        return s
    }

    static func offered(_ s: TitleStatus) -> [String] { ConsoleActions.offered(s).map(\.rawValue) }

    @Test func aCompletedTitleOffersNoPauseOrResume() {
        #expect(Self.offered(Self.title(.completed)) == ["renew", "delete"])
        #expect(
            Self.offered(Self.title(.completed, license: LicenseKind.none)) == ["delete"],
            "a clear title has no renewal")
    }

    @Test func aDownloadingOrQueuedTitleMayBePausedNotResumed() {
        #expect(Self.offered(Self.title(.downloading)) == ["pause", "renew", "delete"])
        #expect(Self.offered(Self.title(.requested, license: nil)) == ["pause", "delete"])
    }

    @Test func aPausedTitleMayBeResumedNotPausedAgain() {
        #expect(Self.offered(Self.title(.suspended, reason: .paused)) == ["resume", "renew", "delete"])
        #expect(
            Self.offered(Self.title(.suspended, reason: .network)) == ["pause", "resume", "renew", "delete"],
            "a title waiting for the network may be paused (it then waits for resume only) or resumed now")
    }

    @Test func aFailedTitleMayBeResumedAndNotRenewed() {
        #expect(Self.offered(Self.title(.failed, license: nil)) == ["resume", "delete"])
        #expect(Self.offered(Self.title(.canceled)) == ["delete"])
    }

    @Test func aRecordingOffersStopNotPause() {
        #expect(Self.offered(Self.title(.recording, recordedSeconds: 12)) == ["stop", "renew", "delete"])
        #expect(
            !Self.offered(Self.title(.downloading, recordedSeconds: 30)).contains("stop"),
            "a recording that has ended is no longer stopped")
    }

    /// The console's row of a title: its redacted source, its ids, and no button the state refuses.
    @Test func aRowShowsTheCopyAndOnlyItsActions() {
        var s = Self.title(.completed)
        s.url = "https://cdn.example/m.m3u8?token=secret"
        s.id = "lecture-1"
        let row = ConsolePage.row(ConsoleTitle(s))
        #expect(row.contains("https://cdn.example/m.m3u8?…") && !row.contains("secret"))
        #expect(row.contains("<code>tok</code>") && row.contains("<code>lecture-1</code>"))
        #expect(!row.contains("data-action=\"pause\"") && row.contains("data-action=\"delete\""))
    }
}
