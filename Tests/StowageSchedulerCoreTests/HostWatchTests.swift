import Foundation
import StowageProtocol
import Testing

@testable import StowageSchedulerCore

@Suite("Waiting for the network")
struct HostWatchTests {
    @Test func probesBackOffUpToAMinuteAndAnAnswerEndsTheWatch() {
        var w = HostWatch()
        w.unreachable("origin:80", now: 100)
        #expect(w.due(now: 101).isEmpty, "first probe after 2 s")
        #expect(w.due(now: 102) == ["origin:80"])
        #expect(w.due(now: 103).isEmpty, "a probe in flight is not started twice")
        var t = 102.0
        var gaps: [Double] = []
        for _ in 0..<8 {
            let answered = w.probed("origin:80", reachable: false, now: t)
            #expect(!answered)
            let next = w.hosts["origin:80"]!.nextProbe
            gaps.append(next - t)
            t = next
            #expect(w.due(now: t) == ["origin:80"])
        }
        #expect(gaps == [4, 8, 16, 32, 60, 60, 60, 60])
        #expect(w.hosts["origin:80"]?.since == 100, "the outage is counted from the first failure")
        let answered = w.probed("origin:80", reachable: true, now: t)
        #expect(answered)
        #expect(w.hosts.isEmpty)
    }

    @Test func aHostAlreadyWatchedKeepsItsScheduleAndRestartCarriesTheOutage() {
        var w = HostWatch()
        w.unreachable("a:80", now: 10)
        w.unreachable("a:80", now: 11.5)
        #expect(w.hosts["a:80"]?.nextProbe == 12)
        w.unreachable("b:443", now: 500, since: 200)
        #expect(w.hosts["b:443"]?.since == 200)
        w.forget("a:80")
        #expect(w.due(now: 1_000) == ["b:443"])
    }
}

@Suite("Limits layers")
struct LimitSettingsTests {
    @Test func storedValuesApplyUnderStartFlagsAndOverridesAreNamed() {
        let stored = LimitSettings(perHost: 3, bandwidth: 500_000)
        let flags = LimitSettings(titles: 4, perHost: 5)
        let inForce = LimitSettings.defaults.overlaid(with: stored).overlaid(with: flags)
        #expect(inForce.limits == Limits(titlesAtOnce: 4, perTitle: 6, perHost: 5, licenses: 4))
        #expect(inForce.bandwidth == 500_000)
        #expect(inForce.diskCushion == 1 << 30)
        let named = stored.overridden(by: flags)
        #expect(named.count == 1)
        #expect(named.first?.option == "per-host" && named.first?.stored == "3" && named.first?.given == "5")
        #expect(
            LimitSettings.defaults.overlaid(with: stored).limits.perHost == 3,
            "stored values survive without flags")
    }

    @Test func outOfRangeValuesAreRefusedByName() {
        #expect(LimitSettings(perHost: 0).refusal()?.contains("--per-host") == true)
        #expect(LimitSettings(bandwidth: -1).refusal()?.contains("--bandwidth") == true)
        #expect(LimitSettings(titles: 3, diskCushion: 0).refusal() == nil)
    }

    @Test func storedSettingsRoundTripAsJSON() throws {
        let s = LimitSettings(perHost: 3, diskCushion: 1_000)
        let data = try JSONEncoder().encode(s)
        #expect(try JSONDecoder().decode(LimitSettings.self, from: data) == s)
    }
}
