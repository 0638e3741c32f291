import StowageProtocol
import Testing

@testable import StowageSchedulerCore

/// What a resolve's plan becomes before it is stored (``PlanAdmission``).
@Suite struct PlanAdmissionTests {
    private func plan(resources: Int = 2, protection: TitleProtection? = nil) -> ResolvedPlan {
        let files = (0..<resources).map {
            PlannedResource(
                kind: .segment, rendition: 0, url: "https://o/s\($0).ts", rangeOffset: nil, rangeLength: nil,
                localPath: "s\($0).ts", container: .mpegTS, encrypted: protection != nil, duration: 4)
        }
        return ResolvedPlan(
            masterPlaylist: "#EXTM3U", renditions: [], resources: files, bytesEstimate: 100,
            keys: [PlannedKey(uri: "https://l/k", method: "SAMPLE-AES", keyFormat: "org.w3.clearkey")],
            protection: protection)
    }

    private func request(
        recording: Bool = false, keySource: Bool = false, allowDeviceDRM: Bool = false, poster: String? = nil
    ) -> PlanAdmission.Request {
        PlanAdmission.Request(
            url: "https://o/m.m3u8", recording: recording, keySource: keySource, allowDeviceDRM: allowDeviceDRM,
            posterURL: poster)
    }

    private let widevine = TitleProtection(
        scheme: "cenc", systems: [.init(name: "Widevine", systemId: "edef8ba9-79d6-4ace-a3c8-27dcd51d21ed")],
        kids: ["00112233445566778899aabbccddeeff"], licenseUrls: [], deviceOnly: true)

    @Test func aPlanWithNothingToFetchIsRefusedUnlessItIsARecording() {
        guard case .refused(let error) = PlanAdmission.of(plan(resources: 0), for: request()) else {
            Issue.record("an empty plan was admitted")
            return
        }
        #expect(error.code == .playlist)
        #expect(error.message == "https://o/m.m3u8: the selected renditions have no segments")
        #expect(PlanAdmission.of(plan(resources: 0), for: request(recording: true)) == .admitted(plan(resources: 0)))
    }

    @Test func aDeviceOnlyTitleNeedsItsConsentAndLosesItsClearKey() {
        guard case .refused(let error) = PlanAdmission.of(plan(protection: widevine), for: request()) else {
            Issue.record("a device-only title was admitted without --allow-device-drm")
            return
        }
        #expect(error.code == .refused)
        #expect(error.message == widevine.deviceOnlyRefusal("https://o/m.m3u8"))
        guard
            case .admitted(let admitted) = PlanAdmission.of(
                plan(protection: widevine), for: request(allowDeviceDRM: true))
        else {
            Issue.record("a device-only title allowed by the submit was refused")
            return
        }
        #expect(admitted.keys.isEmpty, "no source: a device licenses it")
        // A key source makes Common Encryption playable here: admitted as it is, its Clear Key kept.
        guard case .admitted(let sourced) = PlanAdmission.of(plan(protection: widevine), for: request(keySource: true))
        else {
            Issue.record("a Common Encryption title with a key source was refused")
            return
        }
        #expect(sourced.protection?.deviceOnly == false)
        #expect(sourced.keys.count == 1)
    }

    @Test func anHTTPPosterIsOneMoreFileNamedByItsExtension() {
        func files(_ poster: String?) -> [PlannedResource] {
            guard case .admitted(let p) = PlanAdmission.of(plan(), for: request(poster: poster)) else { return [] }
            return p.resources
        }
        #expect(files(nil).count == 2)
        #expect(files("https://o/art.PNG").last?.localPath == "poster.png")
        #expect(files("https://o/art.PNG").last?.kind == .poster)
        #expect(files("http://o/art").last?.localPath == "poster.img")
        #expect(files("file:///etc/passwd").count == 2, "only http and https posters are fetched")
    }
}
