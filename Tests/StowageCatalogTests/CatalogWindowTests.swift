import Foundation
import StowageCatalog
import StowageProtocol
import Testing

/// A catalogue entry's `window` and `"urgent"` reach the submit the box makes for it; a window that cannot be read
/// refuses the catalogue whole, naming the entry and the text.
@Suite("Catalogue windows")
struct CatalogWindowTests {
    func document(_ fields: String) -> Data {
        Data(#"{"version": 1, "titles": [{"id": "a", "url": "http://127.0.0.1:9/a.m3u8"\#(fields)}]}"#.utf8)
    }

    @Test func theWindowAndUrgencyFlowIntoTheSubmit() throws {
        let windowed = try Catalog.decode(document(#", "window": "01:00-06:00,13:00-14:00""#)).titles[0]
        let request = windowed.submitRequest(withID: true)
        #expect(request.window == "01:00-06:00,13:00-14:00")
        #expect(request.now == nil)
        let urgent = try Catalog.decode(document(#", "priority": "urgent", "window": "01:00-06:00""#)).titles[0]
        #expect(urgent.submitRequest(withID: false).now == true, "urgent ignores the windows")
        #expect(try Catalog.decode(document(#", "priority": 5"#)).titles[0].submitRequest(withID: true).now == nil)
    }

    @Test func anUnreadableWindowRefusesTheCatalogue() {
        #expect {
            try Catalog.decode(document(#", "window": "1-6""#))
        } throws: { error in
            guard let refusal = error as? CatalogRefusal else { return false }
            return refusal.code == .malformed && refusal.message.contains("title 'a'")
                && refusal.message.contains("'1-6'")
        }
    }
}
