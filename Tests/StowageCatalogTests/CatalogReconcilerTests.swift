import StowageProtocol
import Testing

@testable import StowageCatalog

@Suite("Catalogue reconciler: desired titles, held titles, plays and time in; effects out")
struct CatalogReconcilerTests {
    func entry(_ id: String, url: String? = nil, bitrate: Int? = nil) -> CatalogEntry {
        CatalogEntry(id: id, url: url ?? "http://o/\(id).m3u8", selection: bitrate.map { Selection(bitrate: $0) })
    }

    func member(
        _ id: String, _ token: String, url: String? = nil, role: CatalogMember.Role = .current,
        removeAt: Double? = nil
    ) -> CatalogMember {
        CatalogMember(
            token: token, id: id, url: url ?? "http://o/\(id).m3u8", selection: Selection(), role: role,
            removeAt: removeAt)
    }

    func facts(
        _ entries: [CatalogEntry]?, _ members: [CatalogMember], states: [String: TitleState] = [:],
        operatorIDs: Set<String> = [], playing: Set<String> = [], now: Double = 1000
    ) -> CatalogReconciler.Facts {
        CatalogReconciler.Facts(
            catalog: entries.map { Catalog(version: 1, titles: $0) }, members: members, states: states,
            operatorIDs: operatorIDs, playing: playing, now: now, grace: 100)
    }

    @Test func noCatalogueDecidesNothing() {
        #expect(CatalogReconciler.reconcile(facts(nil, [member("a", "t1")])).isEmpty)
    }

    @Test func listedIdsTheBoxLacksAreSubmittedButNotOperatorHeldOnes() {
        let effects = CatalogReconciler.reconcile(
            facts([entry("a"), entry("b"), entry("c")], [member("a", "t1")], operatorIDs: ["c"]))
        #expect(effects == [.submit(entry("b"))])
    }

    @Test func aBoxThatHoldsItsCatalogueDecidesNothing() {
        let effects = CatalogReconciler.reconcile(
            facts(
                [entry("a"), entry("b")], [member("a", "t1"), member("b", "t2")],
                states: ["t1": .completed, "t2": .downloading]))
        #expect(effects.isEmpty)
    }

    @Test func aChangedUrlGetsANewCopySwappedInOnlyWhenComplete() {
        let changed = entry("a", url: "http://o/a-v2.m3u8")
        #expect(CatalogReconciler.reconcile(facts([changed], [member("a", "t1")])) == [.submitReplacement(changed)])
        let both = [member("a", "t1"), member("a", "t2", url: "http://o/a-v2.m3u8", role: .incoming)]
        #expect(CatalogReconciler.reconcile(facts([changed], both, states: ["t2": .downloading])).isEmpty)
        #expect(
            CatalogReconciler.reconcile(facts([changed], both, states: ["t2": .completed]))
                == [.swap(id: "a", old: "t1", new: "t2")])
    }

    @Test func aChangedSelectionIsAChangeToo() {
        let changed = entry("a", bitrate: 2_000_000)
        #expect(CatalogReconciler.reconcile(facts([changed], [member("a", "t1")])) == [.submitReplacement(changed)])
    }

    @Test func aNewCopyOutdatedByAnotherChangeIsDroppedAndStartedAgain() {
        let v3 = entry("a", url: "http://o/a-v3.m3u8")
        let both = [member("a", "t1"), member("a", "t2", url: "http://o/a-v2.m3u8", role: .incoming)]
        #expect(
            CatalogReconciler.reconcile(facts([v3], both))
                == [.scheduleRemoval(token: "t2", at: 1000), .submitReplacement(v3)])
        // Changed back to what the box holds: the new copy is dropped, nothing is fetched.
        #expect(CatalogReconciler.reconcile(facts([entry("a")], both)) == [.scheduleRemoval(token: "t2", at: 1000)])
    }

    @Test func aTitleKeptUntilADateLeavesAfterItAndAfterTheGrace() {
        var kept = member("a", "t1")
        kept.keepUntil = 5000
        #expect(CatalogReconciler.reconcile(facts([], [kept])) == [.scheduleRemoval(token: "t1", at: 5000)])
        kept.keepUntil = 500
        #expect(CatalogReconciler.reconcile(facts([], [kept])) == [.scheduleRemoval(token: "t1", at: 1100)])
    }

    @Test func membersTakeTheirEntrysKeepUntilAndKeepItOnceUnlisted() throws {
        var book = CatalogBook()
        var entry = entry("a")
        entry.keepUntil = "2027-01-15T10:00:00Z"
        book.accepted(Catalog(version: 1, titles: [entry]), digest: "d1", source: "apply", now: 0)
        book.added(member("a", "t1"))
        #expect(book.members.first?.keepUntil == 1_800_007_200)
        book.accepted(Catalog(version: 2, titles: []), digest: "d2", source: "apply", now: 1)
        #expect(book.members.first?.keepUntil == entry.keepUntilSeconds)
        book.accepted(Catalog(version: 3, titles: [self.entry("a")]), digest: "d3", source: "apply", now: 2)
        #expect(book.members.first?.keepUntil == nil, "listed again without it: no longer kept")
    }

    @Test func aTitleThatLeftIsRemovedAfterTheGraceAndNotWhilePlayed() {
        #expect(
            CatalogReconciler.reconcile(facts([], [member("a", "t1")])) == [.scheduleRemoval(token: "t1", at: 1100)])
        let leaving = [member("a", "t1", removeAt: 1100)]
        #expect(CatalogReconciler.reconcile(facts([], leaving, now: 1099)).isEmpty)
        #expect(CatalogReconciler.reconcile(facts([], leaving, now: 1100)) == [.delete(token: "t1")])
        #expect(CatalogReconciler.reconcile(facts([], leaving, playing: ["t1"], now: 2000)).isEmpty)
    }

    @Test func aTitleListedAgainBeforeItsRemovalIsKept() {
        let leaving = [member("a", "t1", removeAt: 1100)]
        #expect(CatalogReconciler.reconcile(facts([entry("a")], leaving, now: 1200)) == [.keep(token: "t1")])
    }

    @Test func theReplacedCopyLeavesOnceNoDevicePlaysIt() {
        var book = CatalogBook()
        book.members = [member("a", "t1"), member("a", "t2", url: "http://o/a-v2.m3u8", role: .incoming)]
        book.record(.swap(id: "a", old: "t1", new: "t2"), now: 1000)
        #expect(book.members.map(\.role) == [.leaving, .current])
        let changed = entry("a", url: "http://o/a-v2.m3u8")
        #expect(CatalogReconciler.reconcile(facts([changed], book.members, playing: ["t1"])).isEmpty)
        #expect(CatalogReconciler.reconcile(facts([changed], book.members)) == [.delete(token: "t1")])
    }

    @Test func theReportSaysWhereEachEntryIs() {
        var book = CatalogBook()
        book.catalog = Catalog(version: 3, titles: [entry("a"), entry("b"), entry("c"), entry("d")])
        book.members = [member("a", "t1"), member("b", "t2"), member("x", "t9", removeAt: 1100)]
        let report = book.report(
            titles: [
                "t1": .init(state: .completed, error: nil),
                "t2": .init(state: .failed, error: TitleError(code: .network, message: "down")),
            ], operatorIDs: ["d"], time: { $0.map { "\($0)" } })
        #expect(report.version == 3)
        #expect(report.entries.map(\.phase) == [.present, .failed, .downloading, .heldByOperator, .toBeRemoved])
        #expect(report.entries[1].error?.message == "down" && report.entries[4].removeAt == "1100.0")
    }
}
