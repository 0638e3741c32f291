import Foundation
import StowageCatalog
import StowageProtocol
import Testing

/// A catalogue entry's `range` (as `submit --range`) reaches the submit the box makes for it; a range that does not
/// parse refuses the catalogue, naming the entry; another range is another copy, as another selection is.
@Suite("Catalogue clips")
struct CatalogRangeTests {
    func document(_ fields: String) -> Data {
        Data(#"{"version": 1, "titles": [{"id": "a", "url": "http://127.0.0.1:9/a.m3u8"\#(fields)}]}"#.utf8)
    }

    @Test func theRangeFlowsIntoTheSubmit() throws {
        let entry = try Catalog.decode(document(#", "range": "00:10:00-00:25:00""#)).titles[0]
        #expect(entry.submitRequest(withID: true).range == ClipRange(from: 600, to: 1500))
        #expect(try Catalog.decode(document("")).titles[0].submitRequest(withID: true).range == nil)
    }

    @Test func aRangeThatDoesNotParseRefusesTheCatalogueNamingTheEntry() {
        for bad in ["25:00-10:00", "ten-twenty", "5", "1:75-2:00"] {
            #expect {
                try Catalog.decode(document(#", "range": "\#(bad)""#))
            } throws: { error in
                guard let refusal = error as? CatalogRefusal else { return false }
                return refusal.code == .malformed && refusal.message.contains("title 'a': range")
            }
        }
    }

    @Test func anotherRangeIsAnotherCopy() throws {
        var entry = CatalogEntry(id: "a", url: "http://o/a.m3u8")
        entry.range = "600-1500"
        let held = CatalogMember(
            token: "t1", id: "a", url: "http://o/a.m3u8", selection: Selection(), range: ClipRange(from: 600, to: 1500),
            role: .current)
        let facts = { (entries: [CatalogEntry]) in
            CatalogReconciler.Facts(
                catalog: Catalog(version: 1, titles: entries), members: [held], states: ["t1": .completed],
                operatorIDs: [], playing: [], now: 1000, grace: 100)
        }
        #expect(CatalogReconciler.reconcile(facts([entry])).isEmpty, "the same clip is the copy held")
        var longer = entry
        longer.range = "600-1800"
        #expect(CatalogReconciler.reconcile(facts([longer])) == [.submitReplacement(longer)])
        var whole = entry
        whole.range = nil
        #expect(CatalogReconciler.reconcile(facts([whole])) == [.submitReplacement(whole)])
    }
}
