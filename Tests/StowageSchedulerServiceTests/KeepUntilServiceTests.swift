import Foundation
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import Testing

@testable import StowageSchedulerService

/// The catalogue's `keepUntil` through the service: until that time the quota evicts the title for nothing, and an
/// entry that leaves the catalogue is removed only after it (and after the grace).
@Suite struct KeepUntilServiceTests {
    let quota = QuotaServiceTests()

    func apply(_ d: ServiceDriver, version: Int, keepA: Double?, listA: Bool = true) throws {
        var titles: [String] = []
        if listA {
            let keep = keepA.map { ", \"keepUntil\": \"\(iso8601($0) ?? "")\"" } ?? ""
            titles.append("{\"id\": \"a\", \"url\": \"http://origin.test/a/master.m3u8\"\(keep)}")
        }
        titles.append("{\"id\": \"b\", \"url\": \"http://origin.test/b/master.m3u8\"}")
        let document = "{\"version\": \(version), \"titles\": [\(titles.joined(separator: ", "))]}"
        let reply = try d.request(.catalogApply(document: Data(document.utf8).base64EncodedString(), signature: nil))
        guard case .catalog = reply else { throw DriverError("catalog apply answered \(reply)") }
    }

    func driver() throws -> ServiceDriver {
        let d = try ServiceDriver {
            $0.quota = 4_500  // two titles of 2,000 bytes
            $0.evictProtect = 0
            $0.catalog.grace = 600
        }
        d.register("dl", .download)
        d.register("lic", .license)
        d.advance(PlayActivity.startupBlindness + 1)
        return d
    }

    @Test func aTitleKeptUntilADateIsNotEvictedBeforeItAndIsAfter() throws {
        let d = try driver()
        let until = d.clock.now() + 7_200
        try apply(d, version: 1, keepA: until)
        try quota.completeEverything(d)
        let token = { (id: String) in try d.store.title(externalID: id)?.token ?? "?" }
        let (a, b) = (try token("a"), try token("b"))
        // Without keepUntil, a (first by token at the same completion time) would be the first victim.
        #expect(try quota.evictable(d) == [b])
        let c = try quota.submitted(d, "c")
        #expect(try d.state(c) == .licensing)
        #expect(try d.store.title(b) == nil && d.state(a) == .completed)
        d.advance(7_201)
        #expect(try quota.evictable(d) == [a], "past its keepUntil, a may be evicted")
    }

    @Test func anEntryThatLeavesIsRemovedAfterItsKeepUntilNotJustTheGrace() throws {
        let d = try driver()
        let until = d.clock.now() + 3_600
        try apply(d, version: 1, keepA: until)
        try quota.completeEverything(d)
        let a = try d.store.title(externalID: "a")?.token ?? "?"
        try apply(d, version: 2, keepA: nil, listA: false)
        d.advance(1_200)  // past the 600 s grace
        #expect(try d.state(a) == .completed, "kept until its keepUntil")
        d.advance(2_500)  // past the keepUntil
        #expect(try d.store.title(a) == nil, "removed once its keepUntil passed")
    }
}
