import StowageProtocol
import Testing

@testable import StowageDASH

@Suite("DASH planner")
struct PlannerTests {
    func plan(_ text: String, _ selection: Selection = Selection()) throws -> ResolvedPlan {
        try Fixtures.plan(text, selection)
    }

    @Test func clearTemplateBecomesLocalFilesAndAManifest() throws {
        let plan = try plan(Fixtures.templateNoTimeline)
        #expect(plan.manifestName == "manifest.mpd" && plan.protection == nil && plan.keys.isEmpty)
        #expect(plan.resources.first?.kind == .initSection)
        #expect(plan.resources.allSatisfy { $0.url.hasPrefix("http://origin.test/movie/") && !$0.encrypted })
        for r in plan.resources { #expect(plan.masterPlaylist.contains(r.localPath.split(separator: "/").first!)) }
        #expect(!plan.masterPlaylist.contains("origin.test"), "the local MPD names only local files")
        #expect((plan.bytesEstimate ?? 0) > 0)
    }

    @Test func clearKeyTitleAcquiresItsKeysAndPointsPlayersAtThePlayServer() throws {
        let plan = try plan(Fixtures.encrypted(clearKey: true))
        let protection = try #require(plan.protection)
        #expect(!protection.deviceOnly && protection.scheme == "cbcs")
        #expect(plan.keys.map(\.keyID) == ["0x1000000010001000100010000000000a"])
        #expect(plan.keys.first?.uri == "https://keys.test/clearkey")
        #expect(plan.keys.first?.keyFormat == "org.w3.clearkey")
        #expect(plan.masterPlaylist.contains(">/clearkey<") && !plan.masterPlaylist.contains("keys.test"))
        #expect(plan.resources.filter { $0.kind == .segment }.allSatisfy { $0.encrypted })
        #expect(plan.resources.filter { $0.kind == .initSection }.allSatisfy { !$0.encrypted })
    }

    @Test func deviceOnlyTitleKeepsWhatADeviceNeeds() throws {
        let plan = try plan(Fixtures.encrypted(clearKey: false))
        let protection = try #require(plan.protection)
        // The keys are planned without a server: `--license-url` or `--key` may still supply them (the scheduler
        // drops them when neither does).
        #expect(protection.deviceOnly && plan.keys.map(\.uri) == [""])
        #expect(!protection.given(keySource: true).deviceOnly && protection.given(keySource: false).deviceOnly)
        #expect(protection.systems.map(\.name) == ["Widevine", "PlayReady"])
        #expect(protection.systems.first?.pssh == Fixtures.widevinePSSH)
        #expect(protection.licenseUrls == ["https://pr.test/rightsmanager.asmx"])
        #expect(plan.masterPlaylist.contains("pr.test"), "a device's license URL stays in the local MPD")
    }
}
