import StowageProtocol
import Testing

@testable import StowageDASH

/// Several `BaseURL`s with `serviceLocation`s: the order files try them in (the `ContentSteering` element's
/// `defaultServiceLocation` first) and the names `status` gives them.
@Suite("DASH service locations")
struct ServiceLocationTests {
    func text(steering: String?) -> String {
        var head = """
            <BaseURL serviceLocation="alpha">http://a.test/title/</BaseURL>
            \t<BaseURL serviceLocation="beta">http://b.test:8080/title/</BaseURL>
            """
        if let steering {
            head += "\n\t<ContentSteering defaultServiceLocation=\"\(steering)\">http://steer.test/s</ContentSteering>"
        }
        return Fixtures.templateNoTimeline.replacingOccurrences(
            of: "\t<ProgramInformation>", with: "\t\(head)\n\t<ProgramInformation>")
    }

    @Test func everyFileHasEveryPlaceAndThePathwaysAreNamedByServiceLocation() throws {
        let mpd = try Fixtures.mpd(text(steering: nil))
        #expect(mpd.serviceLocations.map(\.name) == ["alpha", "beta"])
        let plan = try Fixtures.plan(text(steering: nil))
        let segment = try #require(plan.resources.first { $0.kind == .segment })
        #expect(segment.url.hasPrefix("http://a.test/title/"))
        #expect(segment.alternates?.count == 1 && segment.alternates?[0].hasPrefix("http://b.test:8080/title/") == true)
        let named = try #require(DASHPathways.named(mpd, plan: plan))
        #expect(
            named == [
                PlannedPathway(name: "alpha", origins: ["http://a.test"]),
                PlannedPathway(name: "beta", origins: ["http://b.test:8080"]),
            ])
    }

    @Test func theSteeringDefaultServiceLocationIsTriedFirst() throws {
        let mpd = try Fixtures.mpd(text(steering: "beta alpha"))
        #expect(mpd.baseURLs == ["http://b.test:8080/title/", "http://a.test/title/"])
        #expect(mpd.serviceLocations.map(\.name) == ["beta", "alpha"])
        let plan = try Fixtures.plan(text(steering: "beta"))
        #expect(plan.resources.allSatisfy { $0.url.hasPrefix("http://b.test:8080/") })
    }

    @Test func onePlaceNamesNoPathways() throws {
        let mpd = try Fixtures.mpd(Fixtures.templateNoTimeline)
        #expect(DASHPathways.named(mpd, plan: try Fixtures.plan(Fixtures.templateNoTimeline)) == nil)
    }
}
