import Foundation
import StowageCatalog
import StowageProtocol
import Testing

/// Catalogue entries with `sources`: peer boxes named by a credential the box keeps, never a secret.
@Suite("Catalogue sources")
struct CatalogSourcesTests {
    func document(_ sources: String) -> Data {
        Data(
            """
            {"version": 1, "titles": [{"id": "film", "url": "http://origin.example/film/master.m3u8",
             "sources": \(sources)}]}
            """.utf8)
    }

    @Test func anEntryNamesItsPeersByCredential() throws {
        let catalog = try Catalog.decode(
            document(
                #"[{"peer": "http://box-a:8480", "credential": "box-a"}, "#
                    + #"{"peer": "https://box-c.lan", "credential": "box-c.key", "id": "film-hd"}]"#))
        #expect(
            catalog.titles[0].sources == [
                CatalogSource(peer: "http://box-a:8480", credential: "box-a"),
                CatalogSource(peer: "https://box-c.lan", credential: "box-c.key", id: "film-hd"),
            ])
        #expect(try Catalog.decode(document("[]")).titles[0].sources == [])
    }

    @Test(arguments: [
        (#"[{"peer": "http://box-a:8480", "credential": "../../etc/shadow"}]"#, "credential"),
        (#"[{"peer": "http://box-a:8480", "credential": ".hidden"}]"#, "credential"),
        (#"[{"peer": "http://box-a:8480", "credential": ""}]"#, "credential"),
        (#"[{"peer": "file:///etc", "credential": "a"}]"#, "not an http(s) URL"),
        (#"[{"peer": "http://box-a:8480/titles", "credential": "a"}]"#, "base URL"),
        (#"[{"peer": "http://box-a:8480", "credential": "a", "id": "../x"}]"#, "title id"),
        (#"[{"peer": "http://box-a:8480", "secret": "s3cret"}]"#, "credential"),
    ])
    func aSourceThatIsNotAPeerAndACredentialRefusesTheCatalogue(sources: String, why: String) {
        do {
            _ = try Catalog.decode(document(sources))
            Issue.record("accepted \(sources)")
        } catch {
            #expect(error.code == .malformed)
            #expect(error.message.contains(why), "\(error.message)")
        }
    }
}
