import Foundation
import StowageProtocol
import StowageSchedulerService
import Testing

/// A catalogue's `window` and `"urgent"` reach the titles the box submits for it (the manual clock reads 08:00 UTC).
@Suite struct CatalogWindowServiceTests {
    @Test func aWindowedEntryWaitsForItsWindowAndAnUrgentOneIsFetchedAtOnce() throws {
        let d = try ServiceDriver { $0.timeZone = TimeZone(identifier: "UTC")! }
        d.register("dl", .download)
        let document = """
            {"version": 1, "titles": [
              {"id": "night", "url": "http://origin.test/night/master.m3u8", "window": "01:00-06:00"},
              {"id": "safety", "url": "http://origin.test/safety/master.m3u8", "window": "01:00-06:00",
               "priority": "urgent"}]}
            """
        let reply = try d.request(.catalogApply(document: Data(document.utf8).base64EncodedString(), signature: nil))
        guard case .catalog(let report) = reply else { throw DriverError("apply answered \(reply)") }
        #expect(report.entries.map(\.phase) == [.waitingForWindow, .downloading])
        let night = try #require(try d.store.title(externalID: "night"))
        #expect(night.state == .suspended && night.suspendedReason == .window && night.fillWindow == "01:00-06:00")
        #expect(try d.status(night.token).nextWindowAt == "2027-01-16T01:00:00Z")
        let safety = try #require(try d.store.title(externalID: "safety"))
        #expect(safety.fetchNow && safety.priority == 1_000_000)
        #expect(try d.tasks(for: "dl").map(\.token) == [safety.token], "only the urgent title fetches")
    }
}
