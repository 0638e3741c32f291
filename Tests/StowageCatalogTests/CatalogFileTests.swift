import Foundation
import StowageCatalog
import StowageProtocol
import Testing

/// A catalogue entry's `file` reaches the submit the box makes for it (`submit --file`); with a license that one
/// file would outlive (``SingleFileClearance``) the catalogue is refused whole, naming the entry and why.
@Suite("Catalogue single file")
struct CatalogFileTests {
    func document(_ fields: String) -> Data {
        Data(#"{"version": 1, "titles": [{"id": "a", "url": "http://127.0.0.1:9/a.m3u8"\#(fields)}]}"#.utf8)
    }

    @Test func theFileFlowsIntoTheSubmit() throws {
        #expect(try Catalog.decode(document(#", "file": "mkv""#)).titles[0].submitRequest(withID: true).file == .mkv)
        #expect(try Catalog.decode(document("")).titles[0].submitRequest(withID: true).file == nil)
    }

    @Test func aLimitedLicenseOrAnUnknownFormatRefusesTheCatalogue() {
        #expect {
            try Catalog.decode(document(#", "file": "mp4", "license": {"kind": "rental", "rentalSeconds": 3600}"#))
        } throws: { error in
            guard let refusal = error as? CatalogRefusal else { return false }
            return refusal.code == .malformed && refusal.message.contains("title 'a'")
                && refusal.message.contains("outlive its license") && refusal.message.contains("rental")
        }
        #expect(throws: CatalogRefusal.self) { try Catalog.decode(document(#", "file": "avi""#)) }
    }
}
