import Crypto
import Foundation
import StowageCatalog
import StowageProtocol
import StowageSchedulerCore
import StowageSchedulerService
import Testing

/// The catalogue driven through the service in-process: `catalog apply` and `status` as a client sends them, the
/// convergence pass on the manual clock, the book across a restart over the same store.
@Suite struct CatalogServiceTests {
    static func document(version: Int, ids: [String], host: String = "origin.test") -> [UInt8] {
        let titles = ids.map { "{\"id\": \"\($0)\", \"url\": \"http://\(host)/\($0)/master.m3u8\"}" }
        return Array("{\"version\": \(version), \"titles\": [\(titles.joined(separator: ", "))]}".utf8)
    }

    func apply(_ driver: ServiceDriver, _ bytes: [UInt8], signature: [UInt8]? = nil) throws -> ReplyBody {
        try driver.request(
            .catalogApply(
                document: Data(bytes).base64EncodedString(), signature: signature.map { Data($0).base64EncodedString() }
            )
        )
    }

    func report(_ driver: ServiceDriver) throws -> CatalogReport {
        guard case .catalog(let report) = try driver.request(.catalogStatus) else {
            throw DriverError("catalog status answered something else")
        }
        return report
    }

    @Test func anAppliedCatalogueSubmitsItsTitlesButNotAnIdTheOperatorHolds() throws {
        let driver = try ServiceDriver()
        var own = SubmitRequest(
            url: "http://origin.test/mine/master.m3u8", name: nil, priority: 0, headers: [], selection: Selection())
        own.id = "c"
        _ = try driver.request(.submit(own))
        guard case .catalog(let report) = try apply(driver, Self.document(version: 1, ids: ["a", "b", "c"])) else {
            throw DriverError("apply was refused")
        }
        #expect(report.version == 1 && report.source == "apply")
        #expect(report.entries.map(\.phase) == [.downloading, .downloading, .heldByOperator])
        let titles = try driver.store.titles()
        #expect(Set(titles.compactMap(\.externalID)) == ["a", "b", "c"])
        #expect(titles.count == 3)
        driver.advance(3)  // another pass decides nothing new
        #expect(try driver.store.titles().count == 3)
    }

    @Test func refusedCataloguesLeaveThePreviousOneInForceAndSayWhy() throws {
        let driver = try ServiceDriver()
        _ = try apply(driver, Self.document(version: 2, ids: ["a"]))
        for (bytes, code) in [
            (Self.document(version: 1, ids: ["b"]), CatalogRefusal.Code.olderVersion),
            (Array("{\"version\": 3, \"titles\": [{\"id\": \"b\"}]}".utf8), .malformed),
            (Array("not json".utf8), .malformed),
        ] {
            guard case .error(let error) = try apply(driver, bytes) else { throw DriverError("accepted \(code)") }
            #expect(error.code == .refused && error.message.contains("version 2 stays in force"))
            let now = try report(driver)
            #expect(now.version == 2 && now.lastError?.code == code)
            #expect(now.entries.map(\.id) == ["a"])
        }
        #expect(try driver.store.titles().compactMap(\.externalID) == ["a"])
    }

    @Test func withAKeyOnlyASignedCatalogueIsApplied() throws {
        let key = Curve25519.Signing.PrivateKey()
        let driver = try ServiceDriver { $0.catalog.gate = CatalogGate(keys: [key.publicKey]) }
        let bytes = Self.document(version: 1, ids: ["a"])
        guard case .error(let unsigned) = try apply(driver, bytes) else { throw DriverError("unsigned accepted") }
        #expect(unsigned.message.contains("unsigned"))
        let other = try CatalogSignature.sign(Data(bytes), with: Curve25519.Signing.PrivateKey())
        guard case .error(let bad) = try apply(driver, bytes, signature: Array(other)) else {
            throw DriverError("a foreign signature was accepted")
        }
        #expect(bad.message.contains("bad-signature"))
        #expect(try report(driver).version == nil)
        let good = try CatalogSignature.sign(Data(bytes), with: key)
        guard case .catalog(let report) = try apply(driver, bytes, signature: Array(good)) else {
            throw DriverError("a good signature was refused")
        }
        #expect(report.version == 1 && report.lastError == nil)
    }

    @Test func aRestartStillKnowsTheCatalogueAndSubmitsNothingTwice() throws {
        let driver = try ServiceDriver()
        _ = try apply(driver, Self.document(version: 4, ids: ["a", "b"]))
        try driver.restart()
        driver.advance(3)
        let after = try report(driver)
        #expect(after.version == 4 && after.entries.compactMap(\.token).count == 2)
        #expect(try driver.store.titles().count == 2)
    }

    /// Past the start-up blindness (``PlayActivity/startupBlindness``, when every title counts as played), two
    /// titles leave together: the one a device reports playing is kept past its grace, the other is deleted then.
    @Test func aTitleThatLeftIsDeletedAfterTheGraceAndNotWhileItIsPlayed() throws {
        let driver = try ServiceDriver { $0.catalog.grace = 10 }
        _ = try apply(driver, Self.document(version: 1, ids: ["a", "b", "c"]))
        let tokens = Dictionary(
            uniqueKeysWithValues: try driver.store.titles().map { ($0.externalID!, $0.token) })
        driver.advance(PlayActivity.startupBlindness + 1)
        _ = try apply(driver, Self.document(version: 2, ids: ["a"]))
        let leaving = try report(driver).entries.filter { $0.phase == .toBeRemoved }
        #expect(leaving.map(\.id).sorted() == ["b", "c"] && leaving.allSatisfy { $0.removeAt != nil })
        driver.advance(5)
        #expect(try driver.store.title(tokens["b"]!) != nil && driver.store.title(tokens["c"]!) != nil, "in grace")
        _ = try driver.request(.played(token: tokens["b"]!, seconds: 1))  // a device plays b
        driver.advance(6)  // the grace is over
        #expect(try driver.store.title(tokens["c"]!) == nil, "c, not played, is deleted after its grace")
        #expect(try driver.store.title(tokens["b"]!) != nil, "b is kept while it is played")
        driver.advance(100)  // the play is over
        #expect(try driver.store.title(tokens["b"]!) == nil)
        #expect(try driver.store.title(tokens["a"]!) != nil)
        #expect(try report(driver).entries.map(\.id) == ["a"])
    }

    @Test func aTitleListedAgainWithinTheGraceStays() throws {
        let driver = try ServiceDriver { $0.catalog.grace = 10 }
        _ = try apply(driver, Self.document(version: 1, ids: ["a"]))
        _ = try apply(driver, Self.document(version: 2, ids: []))
        _ = try apply(driver, Self.document(version: 3, ids: ["a"]))
        driver.advance(30)
        #expect(try driver.store.titles().count == 1)
        #expect(try report(driver).entries.map(\.phase) == [.downloading])
    }

    @Test func aChangedUrlDownloadsANewCopyAndKeepsTheIdOnTheOldUntilItIsComplete() throws {
        let driver = try ServiceDriver()
        _ = try apply(driver, Self.document(version: 1, ids: ["a"]))
        let old = try driver.store.title(externalID: "a")!.token
        _ = try apply(driver, Self.document(version: 2, ids: ["a"], host: "origin2.test"))
        let titles = try driver.store.titles()
        #expect(titles.count == 2)
        let new = titles.first { $0.token != old }!
        #expect(new.url == "http://origin2.test/a/master.m3u8" && new.externalID == nil)
        #expect(try driver.store.title(externalID: "a")?.token == old)
        #expect(try report(driver).entries.first?.replacing == new.token)
    }
}

/// A catalogue of many titles is applied in slices, one per loop turn, so the scheduler answers between them.
@Suite struct CatalogSliceServiceTests {
    @Test func aLargeCatalogueIsAppliedInSlicesOnePerPass() throws {
        let driver = try ServiceDriver()
        let ids = (0..<250).map { "t\($0)" }
        _ = try CatalogServiceTests().apply(driver, CatalogServiceTests.document(version: 1, ids: ids))
        let slice = CatalogComponent.sliceEffects
        #expect(try driver.store.titles().count == slice, "one slice at the apply")
        driver.tick()  // a client's request is answered between two slices (the loop's turn)
        #expect(try driver.store.titles().count == 2 * slice)
        driver.tick()
        #expect(try driver.store.titles().count == ids.count)
        driver.tick()
        #expect(try driver.store.titles().count == ids.count, "nothing submitted twice")
    }
}
