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

/// A catalogue's size, number of titles and version are bounded (``CatalogLimits``): past them it is refused whole,
/// with the field or the number named, and the one in force stays.
@Suite("Catalogue size and version bounds")
struct CatalogLimitTests {
    func document(version: String, titles: Int = 1) -> Data {
        let entries = (0..<titles).map { "{\"id\": \"t\($0)\", \"url\": \"http://127.0.0.1:9/\($0).m3u8\"}" }
        return Data("{\"version\": \(version), \"titles\": [\(entries.joined(separator: ","))]}".utf8)
    }

    @Test func aVersionAtTheIntegerCeilingIsRefusedNamingTheFieldAndDoesNotShutOutLaterOnes() throws {
        let gate = CatalogGate(keys: [])
        let error = #expect(throws: CatalogRefusal.self) {
            try gate.admit(document(version: "9223372036854775807"), signature: nil, inForce: (5, "x"))
        }
        #expect(
            error?.code == .badVersion && error?.message.contains("'version'") == true, "\(String(describing: error))")
        #expect(throws: CatalogRefusal.self) {
            try gate.admit(document(version: "\((1 << 53) + 1)"), signature: nil, inForce: nil)
        }
        #expect(throws: CatalogRefusal.self) { try gate.admit(document(version: "-1"), signature: nil, inForce: nil) }
        // A jump of more than 2^32 above the one in force is refused; a date or Unix seconds as a version is not.
        let jump = #expect(throws: CatalogRefusal.self) {
            try gate.admit(document(version: "\(5 + (1 << 32) + 1)"), signature: nil, inForce: (5, "x"))
        }
        #expect(jump?.code == .badVersion)
        #expect(throws: Never.self) {
            try gate.admit(document(version: "1764240000"), signature: nil, inForce: (5, "x"))
        }
        #expect(throws: Never.self) { try gate.admit(document(version: "\(1 << 53)"), signature: nil, inForce: nil) }
    }

    @Test func tooManyTitlesOrTooManyBytesAreRefusedWithTheNumbers() throws {
        let gate = CatalogGate(keys: [])
        let many = #expect(throws: CatalogRefusal.self) {
            try gate.admit(document(version: "1", titles: CatalogLimits.maxEntries + 1), signature: nil, inForce: nil)
        }
        #expect(many?.code == .tooLarge && many?.message.contains("\(CatalogLimits.maxEntries)") == true)
        #expect(throws: Never.self) {
            try gate.admit(document(version: "1", titles: CatalogLimits.maxEntries), signature: nil, inForce: nil)
        }
        var big = document(version: "1")
        big.append(Data(repeating: 0x20, count: CatalogLimits.maxBytes))
        let large = #expect(throws: CatalogRefusal.self) { try gate.admit(big, signature: nil, inForce: nil) }
        #expect(large?.code == .tooLarge && large?.message.contains("\(CatalogLimits.maxBytes)") == true)
    }
}
