import Testing

@testable import StowageGateway

@Suite("Playback sessions")
struct PlaybackSessionsTests {
    @Test func playlistsAloneCountNothing() {
        var s = PlaybackSessions()
        for t in stride(from: 0.0, to: 100, by: 10) {
            guard case .serve = s.record(device: "tv", token: "a", kind: .playlist, now: t) else {
                Issue.record("a playlist counted")
                return
            }
        }
    }

    @Test func firstMediaCountsOnceThenSamePlayWithin30s() {
        var s = PlaybackSessions()
        guard case .serve(let id) = s.record(device: "tv", token: "a", kind: .playlist, now: 0) else {
            Issue.record("playlist")
            return
        }
        #expect(s.record(device: "tv", token: "a", kind: .media, now: 1) == .countPlay(session: id))
        #expect(s.record(device: "tv", token: "a", kind: .media, now: 2) == .counted(session: id))
        #expect(s.record(device: "tv", token: "a", kind: .media, now: 31.5) == .counted(session: id))
        #expect(s.record(device: "tv", token: "a", kind: .playlist, now: 61) == .serve(session: id))
        #expect(s.isPlaying(device: "tv", token: "a", now: 62))
    }

    @Test func after30sIdleANewPlay() {
        var s = PlaybackSessions()
        guard case .countPlay(let first) = s.record(device: "tv", token: "a", kind: .media, now: 100) else {
            Issue.record("first media must count")
            return
        }
        let second = s.record(device: "tv", token: "a", kind: .media, now: 130.5)
        guard case .countPlay(let id) = second else {
            Issue.record("expected a new play, got \(second)")
            return
        }
        #expect(id != first)
        #expect(!s.isPlaying(device: "tv", token: "a", now: 200))
    }

    @Test func devicesAndTitlesCountSeparately() {
        var s = PlaybackSessions()
        guard case .countPlay = s.record(device: "tv", token: "a", kind: .media, now: 0),
            case .countPlay = s.record(device: "phone", token: "a", kind: .media, now: 1),
            case .countPlay = s.record(device: "tv", token: "b", kind: .media, now: 2),
            case .counted = s.record(device: "tv", token: "a", kind: .media, now: 3)
        else {
            Issue.record("each device and title counts on its own")
            return
        }
    }

    @Test func refusedPlayAsksAgain() {
        var s = PlaybackSessions()
        guard case .countPlay(let id) = s.record(device: "tv", token: "a", kind: .media, now: 0) else {
            Issue.record("first")
            return
        }
        s.uncount(device: "tv", token: "a", session: id)
        #expect(s.record(device: "tv", token: "a", kind: .media, now: 1) == .countPlay(session: id))
        s.prune(now: 100)
        #expect(s.count == 0)
    }
}
