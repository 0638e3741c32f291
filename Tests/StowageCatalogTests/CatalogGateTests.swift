import Crypto
import Foundation
import StowageProtocol
import Testing

@testable import StowageCatalog

@Suite("Catalogue gate: signature, form and version")
struct CatalogGateTests {
    let key = Curve25519.Signing.PrivateKey()

    func document(version: Int, ids: [String] = ["a"]) -> Data {
        let titles = ids.map { "{\"id\": \"\($0)\", \"url\": \"http://127.0.0.1:9/\($0)/master.m3u8\"}" }
        return Data("{\"version\": \(version), \"titles\": [\(titles.joined(separator: ","))]}".utf8)
    }

    @Test func aSignedNewerCatalogueIsApplied() throws {
        let gate = CatalogGate(keys: [key.publicKey])
        let bytes = document(version: 2, ids: ["a", "b"])
        let verdict = try gate.admit(bytes, signature: try CatalogSignature.sign(bytes, with: key), inForce: nil)
        guard case .apply(let catalog, _) = verdict else {
            Issue.record("not applied: \(verdict)")
            return
        }
        #expect(catalog.version == 2 && catalog.titles.map(\.id) == ["a", "b"])
    }

    @Test func aChangedByteBreaksTheSignature() throws {
        let gate = CatalogGate(keys: [key.publicKey])
        let bytes = document(version: 2)
        let signature = try CatalogSignature.sign(bytes, with: key)
        var changed = bytes
        changed[changed.count - 3] = UInt8(ascii: " ")
        #expect(throws: CatalogRefusal.self) { try gate.admit(changed, signature: signature, inForce: nil) }
        do { _ = try gate.admit(changed, signature: signature, inForce: nil) } catch {
            #expect(error.code == .badSignature)
        }
    }

    @Test func anotherKeysSignatureAndNoSignatureAreRefused() throws {
        let gate = CatalogGate(keys: [key.publicKey])
        let bytes = document(version: 1)
        let other = try CatalogSignature.sign(bytes, with: Curve25519.Signing.PrivateKey())
        #expect(refusal { try gate.admit(bytes, signature: other, inForce: nil) } == .badSignature)
        #expect(refusal { try gate.admit(bytes, signature: nil, inForce: nil) } == .unsigned)
        #expect(refusal { try gate.admit(bytes, signature: Data("garbage".utf8), inForce: nil) } == .badSignature)
    }

    @Test func withoutKeysAnUnsignedCatalogueIsAccepted() throws {
        let verdict = try CatalogGate(keys: []).admit(document(version: 1), signature: nil, inForce: nil)
        guard case .apply = verdict else {
            Issue.record("not applied")
            return
        }
    }

    @Test func theVersionMustGrowButTheSameBytesAreNoChange() throws {
        let gate = CatalogGate(keys: [])
        guard case .apply(_, let digest) = try gate.admit(document(version: 5), signature: nil, inForce: nil) else {
            Issue.record("not applied")
            return
        }
        #expect(try gate.admit(document(version: 5), signature: nil, inForce: (5, digest)) == .unchanged)
        #expect(refusal { try gate.admit(document(version: 4), signature: nil, inForce: (5, digest)) } == .olderVersion)
        #expect(
            refusal { try gate.admit(document(version: 5, ids: ["b"]), signature: nil, inForce: (5, digest)) }
                == .olderVersion)
    }

    @Test func malformedCataloguesAreRefusedWithTheReason() {
        let gate = CatalogGate(keys: [])
        for text in [
            "{not json", "{\"titles\": []}", "{\"version\": 1, \"titles\": [{\"id\": \"a\"}]}",
            "{\"version\": 1, \"titles\": [{\"id\": \"a\", \"url\": \"file:///etc/passwd\"}]}",
            "{\"version\": 1, \"titles\": [{\"id\": \"a\", \"url\": \"http://h/1\"},"
                + " {\"id\": \"a\", \"url\": \"http://h/2\"}]}",
            "{\"version\": 1, \"titles\": [{\"id\": \"a/b\", \"url\": \"http://h/1\"}]}",
            "{\"version\": 1, \"titles\": [{\"id\": \"a\", \"url\": \"http://h/1\", \"priority\": \"soon\"}]}",
        ] {
            #expect(refusal { try gate.admit(Data(text.utf8), signature: nil, inForce: nil) } == .malformed, "\(text)")
        }
    }

    /// A catalogue's ids go by submit's rule (``TitleLabels``): one the gateway could take for a token, or a path
    /// part such as `..`, refuses the catalogue naming the id, before any entry is submitted.
    @Test func catalogueIdsFollowSubmitsRule() {
        for (id, why) in [("0123456789abcdef", "shape of a title token"), ("..", "not '.' or '..'")] {
            let text = "{\"version\": 1, \"titles\": [{\"id\": \"\(id)\", \"url\": \"http://h/1\"}]}"
            do {
                _ = try Catalog.decode(Data(text.utf8))
                Issue.record("\(id) was accepted")
            } catch {
                #expect(
                    error.code == .malformed && error.message.contains(id) && error.message.contains(why), "\(error)")
            }
        }
    }

    @Test func keysAndSignaturesReadAsRawBase64OrHex() throws {
        let raw = key.publicKey.rawRepresentation
        let hex = Hex.encode(raw)
        for contents in [raw, Data(raw.base64EncodedString().utf8), Data((hex + "\n").utf8)] {
            #expect(try CatalogSignature.publicKey(from: contents).rawRepresentation == raw)
        }
        #expect(throws: CatalogKeyError.self) { try CatalogSignature.publicKey(from: Data("short".utf8)) }
        let bytes = document(version: 1)
        let signature = try key.signature(for: bytes)
        #expect(CatalogSignature.verify(bytes, signature: signature, keys: [key.publicKey]))
    }

    @Test func priorityIsANumberOrUrgent() throws {
        let text = """
            {"version": 1, "titles": [{"id": "a", "url": "http://h/a", "priority": "urgent"},
            {"id": "b", "url": "http://h/b", "priority": 3, "selection": {"bitrate": 500000}}]}
            """
        let catalog = try Catalog.decode(Data(text.utf8))
        #expect(catalog.titles[0].priority == .urgent && catalog.titles[1].priority?.value == 3)
        #expect(catalog.titles[1].selection?.bitrate == 500_000)
    }

    private func refusal(_ body: () throws -> CatalogGate.Verdict) -> CatalogRefusal.Code? {
        do {
            _ = try body()
            return nil
        } catch { return (error as? CatalogRefusal)?.code }
    }
}
