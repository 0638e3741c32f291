import Crypto
import Foundation
import StowageCatalog
import StowageProtocol
import StowageSchedulerCore
import StowageSchedulerService
import Testing

/// What a catalogue or a restart must not be able to do: overflow a priority, lose the signature's URL to a query,
/// or delete a title whose play has not reported since the start.
@Suite("Catalogue bounds")
struct CatalogBoundsTests {
    func document(priority: String) -> Data {
        Data(
            """
            {"version": 1, "titles": [{"id": "a", "url": "http://127.0.0.1:9/a.m3u8", "priority": \(priority)}]}
            """.utf8)
    }

    @Test(arguments: ["-9223372036854775808", "9223372036854775807", "1000000", "-1000001"])
    func aPriorityOutOfBoundsRefusesTheCatalogue(priority: String) throws {
        let gate = CatalogGate(keys: [])
        #expect(throws: CatalogRefusal.self) {
            try gate.admit(document(priority: priority), signature: nil, inForce: nil)
        }
        #expect(throws: Never.self) { try gate.admit(document(priority: "999999"), signature: nil, inForce: nil) }
    }

    @Test func theSignatureSitsBesideThePathNotAfterTheQuery() {
        #expect(CatalogFetcher.signatureURL("https://h/c.json") == "https://h/c.json.sig")
        #expect(CatalogFetcher.signatureURL("https://h/c.json?t=x") == "https://h/c.json.sig?t=x")
        #expect(CatalogFetcher.signatureURL("http://h:8/d/c%20x.json?a=1&b=2") == "http://h:8/d/c%20x.json.sig?a=1&b=2")
    }

    @Test func playsAreOnlyToldFromNoneOnceTheyCouldHaveReported() {
        var plays = PlayActivity()
        #expect(!plays.seesEveryPlay(now: 100), "not watching yet")
        plays.begin(now: 100)
        #expect(!plays.seesEveryPlay(now: 100 + PlayActivity.startupBlindness - 1))
        plays.begin(now: 200)  // the first start counts
        #expect(plays.seesEveryPlay(now: 100 + PlayActivity.startupBlindness))
    }
}
